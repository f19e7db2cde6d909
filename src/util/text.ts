/** C0 and C1 control characters and DEL: what a terminal may run as commands rather than show. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** The same but for the tab and the line feed, which lay out text (a terminal obeys nothing else in them). */
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with its control characters written out (`\u001b` for ESC), so that a name a tenant
 * chose (`crm\e]0;…\a\e[2J`) is shown in a terminal, never obeyed. The form is JSON's, so JSON
 * text stays the same JSON. `keepLayout`: tabs and line feeds stay (lines of text, tab-separated
 * output: a terminal obeys nothing else in them).
 */
export function escapeControls(text: string, keepLayout = false): string {
  const re = keepLayout ? CONTROLS_BUT_LAYOUT : CONTROLS;
  re.lastIndex = 0;
  return re.test(text) ? text.replace(re, escaped) : text;
}
