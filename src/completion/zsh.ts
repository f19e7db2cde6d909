import { caseFunction, nameOf, shellQuote as q, valueSlots, type CompletionModel, type Values } from './model.js';

/** The zsh function call that offers `values` (the word being completed is `$PREFIX`). */
function offer(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `_tel_words ${values.words.map(q).join(' ')}`;
    case 'files':
      return '_files';
    case 'accounts':
      return '_tel_accounts';
    case 'config-keys':
      return '_tel_config_keys';
  }
}

/** `name:description` as `_describe` takes it (a colon in the name escaped). */
function described(name: string, description: string): string {
  return q(`${name.replace(/:/g, '\\:')}:${description}`);
}

/** The completion script for zsh, made from the program's model: a file of `fpath` (`_tel`), or sourced after `compinit`. */
export function zshScript(model: CompletionModel, version: string): string {
  const commands = caseFunction('_tel_command', '$1', [
    ...model.commands.map((c): [string, string] => [
      c.path,
      [
        `\n      _tel_names=(${c.subcommands.map((s) => q(nameOf(s))).join(' ')})`,
        `      _tel_subs=(${c.subcommands.map((s) => described(nameOf(s), s.description)).join(' ')})`,
        `      _tel_opts=(${c.options.flatMap((o) => o.names.map((n) => described(n, o.description))).join(' ')})`,
        `      _tel_valued=(${c.valued.join(' ')})`,
      ].join('\n'),
    ]),
    ['*', '_tel_names=() _tel_subs=() _tel_opts=() _tel_valued=()'],
  ]);
  const values = caseFunction('_tel_values', '"$1|$2"', valueSlots(model).map(({ path, slot, values }) => [`${path}|${slot}`, offer(values)]));
  const keys = caseFunction('_tel_config_keys', '${_tel_args[1]}', Object.entries(model.configKeys).map(([category, names]) => [category, `_tel_words ${names.map(q).join(' ')}`]));
  return `#compdef tel
# zsh completion for tel ${version}, made by \`tel completion zsh\`: commands, options and their values.
# Install:  tel completion zsh > "\${fpath[1]}/_tel"            (then start a new shell)
#     or:   echo 'source <(tel completion zsh)' >> ~/.zshrc    (after compinit)

# Sets what may follow the command at path $1: subcommand names (and with their descriptions),
# options with their descriptions, options that take a value.
${commands}

# Offers the values of option $2 (or of argument #N) of the command at path $1.
${values}

${keys}

_tel_words() {
  compadd -- "$@"
}

# Accounts whose name or id starts with what was typed (a name; an id when one is typed), each
# shown with the other, read from the database by tel itself.
_tel_accounts() {
  local value other
  local -a values shown dbopt
  [[ -n $db ]] && dbopt=(--db "$db")
  while IFS=$'\\t' read -r value other; do
    values+=("$value")
    shown+=("$value  $other")
  done < <("\${words[1]}" __complete accounts "\${dbopt[@]}" -- "$PREFIX" 2>/dev/null)
  (( \${#values} )) && compadd -U -l -d shown -a values
}

_tel() {
  local cmdpath='' word opt='' db=''
  local -i i=2 at
  local -a _tel_names _tel_subs _tel_opts _tel_valued _tel_args
  _tel_command ''
  while (( i < CURRENT )); do
    word=\${words[i]}
    if [[ $word == -* ]] && (( \${_tel_valued[(Ie)$word]} )); then
      at=$((i + 1))
      if (( at >= CURRENT )); then opt=$word; break; fi
      [[ $word == --db ]] && db=\${words[at]}
      i=$((at + 1))
      continue
    fi
    if [[ $word == --db=* ]]; then
      db=\${word#--db=}
    elif [[ $word != -* ]]; then
      if (( \${#_tel_args} == 0 && \${_tel_names[(Ie)$word]} )); then
        cmdpath=\${cmdpath:+$cmdpath }$word
        _tel_command "$cmdpath"
      else
        _tel_args+=("$word")
      fi
    fi
    i=$((i + 1))
  done
  if [[ -z $opt && $PREFIX == -*=* ]] && (( \${_tel_valued[(Ie)\${PREFIX%%=*}]} )); then
    opt=\${PREFIX%%=*}
    compset -P '*='
  fi
  db=\${db/#\\~/$HOME}
  if [[ -n $opt ]]; then
    _tel_values "$cmdpath" "$opt"
  elif [[ $PREFIX == -* ]]; then
    _describe -t options option _tel_opts
  elif (( \${#_tel_args} == 0 && \${#_tel_subs} )); then
    _describe -t commands 'tel command' _tel_subs
  else
    _tel_values "$cmdpath" "#$(( \${#_tel_args} + 1 ))"
  fi
}

if [[ \${funcstack[1]} == _tel ]]; then
  _tel "$@"
else
  compdef _tel tel
fi
`;
}
