import { caseFunction, nameOf, shellQuote as q, valueSlots, type CompletionModel, type Values } from './model.js';

/** The bash function call that offers `values` (the word being completed is `$cur`). */
function offer(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `_tel_words ${q(values.words.join(' '))}`;
    case 'files':
      return '_tel_files';
    case 'accounts':
      return '_tel_accounts';
    case 'config-keys':
      return '_tel_config_keys';
  }
}

/** The completion script for bash (4.1 or later), made from the program's model. */
export function bashScript(model: CompletionModel, version: string): string {
  const commands = caseFunction('_tel_command', '$1', [
    ...model.commands.map((c): [string, string] => {
      const flags = c.options.filter((o) => !o.takesValue).flatMap((o) => o.names);
      return [c.path, `_tel_subs=${q(c.subcommands.map(nameOf).join(' '))} _tel_flags=${q(flags.join(' '))} _tel_valued=${q(c.valued.join(' '))}`];
    }),
    ['*', "_tel_subs='' _tel_flags='' _tel_valued=''"],
  ]);
  const values = caseFunction('_tel_values', '"$1|$2"', valueSlots(model).map(({ path, slot, values }) => [`${path}|${slot}`, offer(values)]));
  const keys = caseFunction('_tel_config_keys', '${_tel_args[0]}', Object.entries(model.configKeys).map(([category, names]) => [category, `_tel_words ${q(names.join(' '))}`]));
  return `# bash completion for tel ${version}, made by \`tel completion bash\`: commands, options and their values.
# Install:  tel completion bash > ~/.local/share/bash-completion/completions/tel
#     or:   echo 'source <(tel completion bash)' >> ~/.bashrc

# Sets what may follow the command at path $1: subcommands, flags, options that take a value.
${commands}

# Offers the values of option $2 (or of argument #N) of the command at path $1.
${values}

${keys}

_tel_words() {
  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_tel_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

# Accounts whose name or id starts with what was typed (a name, escaped for the line; an id when
# one is typed), read from the database by tel itself.
_tel_accounts() {
  local value other quoted
  while IFS=$'\\t' read -r value other; do
    printf -v quoted '%q' "$value"
    COMPREPLY+=("$quoted")
  done < <("\${COMP_WORDS[0]}" __complete accounts \${db:+--db "$db"} -- "$cur" 2>/dev/null)
}

_tel() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmdpath='' word opt='' db='' i=1 at _tel_subs _tel_flags _tel_valued
  local -a _tel_args=()
  COMPREPLY=()
  _tel_command ''
  while (( i < COMP_CWORD )); do
    word=\${COMP_WORDS[i]}
    if [[ $word == -* && " $_tel_valued " == *" $word "* ]]; then
      # the value is the next word, after the = that bash splits off --opt=value
      at=$((i + 1))
      [[ \${COMP_WORDS[at]} == = ]] && at=$((at + 1))
      if (( at >= COMP_CWORD )); then opt=$word; break; fi
      [[ $word == --db ]] && db=\${COMP_WORDS[at]}
      i=$((at + 1))
      continue
    fi
    if [[ $word == --db=* ]]; then
      db=\${word#--db=}
    elif [[ $word != -* ]]; then
      if (( \${#_tel_args[@]} == 0 )) && [[ " $_tel_subs " == *" $word "* ]]; then
        cmdpath=\${cmdpath:+$cmdpath }$word
        _tel_command "$cmdpath"
      else
        _tel_args+=("$word")
      fi
    fi
    i=$((i + 1))
  done
  db=\${db/#\\~/$HOME}
  if [[ -n $opt ]]; then
    [[ $cur == = ]] && cur=''
    _tel_values "$cmdpath" "$opt"
  elif [[ $cur == -* ]]; then
    _tel_words "$_tel_flags $_tel_valued"
  elif (( \${#_tel_args[@]} == 0 )) && [[ -n $_tel_subs ]]; then
    _tel_words "$_tel_subs"
  else
    _tel_values "$cmdpath" "#$(( \${#_tel_args[@]} + 1 ))"
  fi
  return 0
}

complete -F _tel tel
`;
}
