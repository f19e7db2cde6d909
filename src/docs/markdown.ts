/** Small helpers that write Markdown (GitHub's flavour) for the generated reference pages. */

/** Escapes text for Markdown prose: what would start emphasis, a link or an HTML tag is shown as is; code spans are kept. */
export function prose(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\*_<>[\]]/g, '\\$&')))
    .join('');
}

/** A table cell: a pipe would end it, a newline the row. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Inline code, long enough a fence for the backticks inside. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A table from a header row and rows of cells (already written as Markdown). */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A fenced code block. */
export function fence(lang: string, body: string): string {
  return `\`\`\`${lang}\n${body.replace(/\n+$/, '')}\n\`\`\``;
}

/** The anchor GitHub gives a heading: lower case, spaces to hyphens, punctuation other than - and _ dropped. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A sentence: the first letter in upper case and a full stop (commander descriptions have neither). */
export function sentence(text: string): string {
  const t = text.trim().replace(/^./, (c) => c.toUpperCase());
  return t === '' || /[.!?:]$/.test(t) ? t : `${t}.`;
}
