import { nameOf, valueSlots, type CompletionModel, type Values } from './model.js';

/** Quotes a word for fish: single quotes, with \\ and \' inside. */
function q(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A candidate and its description, as fish lists them (a tab between). */
function described(name: string, description: string): string {
  return `${q(name)}\\t${q(description)}`;
}

/** The fish commands that print the values of a slot (`$cur`: what was typed). */
function offer(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `printf '%s\\n' ${values.words.map(q).join(' ')}`;
    case 'files':
      return '__fish_complete_path $cur';
    case 'accounts':
      return '__tel_accounts $tel $cur $db';
    case 'config-keys':
      return '__tel_config_keys $category';
  }
}

/** The completion script for fish, made from the program's model. */
export function fishScript(model: CompletionModel, version: string): string {
  const commands = model.commands.map((c) => {
    return [
      `        case ${c.path === '' ? "''" : q(c.path)}`,
      `            set -g __tel_names ${c.subcommands.map((s) => q(nameOf(s))).join(' ')}`,
      `            set -g __tel_subs ${c.subcommands.map((s) => described(nameOf(s), s.description)).join(' ')}`,
      `            set -g __tel_opts ${c.options.flatMap((o) => o.names.map((n) => described(n, o.description))).join(' ')}`,
      `            set -g __tel_valued ${c.valued.join(' ')}`,
    ].join('\n');
  });
  const values = valueSlots(model).map(({ path, slot, values }) => `        case ${q(`${path}|${slot}`)}\n            ${offer(values)}`);
  const keys = Object.entries(model.configKeys).map(([category, names]) => `        case ${q(category)}\n            printf '%s\\n' ${names.map(q).join(' ')}`);
  return `# fish completion for tel ${version}, made by \`tel completion fish\`: commands, options and their values.
# Install:  tel completion fish > ~/.config/fish/completions/tel.fish

# Sets what may follow the command at path $argv[1]: subcommand names (and with their
# descriptions), options with their descriptions, options that take a value.
function __tel_command
    switch "$argv[1]"
${commands.join('\n')}
        case '*'
            set -g __tel_names
            set -g __tel_subs
            set -g __tel_opts
            set -g __tel_valued
    end
end

# Prints the values of option (or argument #N) $slot of the command at path $cmdpath.
function __tel_values --argument-names cmdpath slot cur category db tel
    switch "$cmdpath|$slot"
${values.join('\n')}
    end
end

function __tel_config_keys --argument-names category
    switch "$category"
${keys.join('\n')}
    end
end

# Accounts whose name or id starts with what was typed (a name, a tab, its id; an id when one is
# typed, a tab, its name), read by tel itself.
function __tel_accounts --argument-names tel cur db
    if test -n "$db"
        $tel __complete accounts --db $db -- $cur 2>/dev/null
    else
        $tel __complete accounts -- $cur 2>/dev/null
    end
end

function __tel_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l args
    set -l opt ''
    set -l db ''
    set -l prefix ''
    __tel_command ''
    set -l i 2
    while test $i -le (count $tokens)
        set -l word $tokens[$i]
        if string match -q -- '-*' $word; and contains -- $word $__tel_valued
            set -l at (math $i + 1)
            if test $at -gt (count $tokens)
                set opt $word
                break
            end
            string match -q -- --db $word; and set db $tokens[$at]
            set i (math $at + 1)
            continue
        end
        if string match -q -- '--db=*' $word
            set db (string replace -- '--db=' '' $word)
        else if not string match -q -- '-*' $word
            if test (count $args) -eq 0; and contains -- $word $__tel_names
                set cmdpath (string trim -- "$cmdpath $word")
                __tel_command $cmdpath
            else
                set -a args $word
            end
        end
        set i (math $i + 1)
    end
    if test -z "$opt"; and string match -qr -- '^-[^=]*=' $cur
        set -l name (string replace -r -- '=.*' '' $cur)
        if contains -- $name $__tel_valued
            set opt $name
            set prefix "$name="
            set cur (string replace -r -- '^[^=]*=' '' $cur)
        end
    end
    set db (string replace -r -- '^~' $HOME "$db")
    if test -n "$opt"
        for value in (__tel_values "$cmdpath" $opt "$cur" "$args[1]" "$db" $tokens[1])
            echo $prefix$value
        end
    else if string match -q -- '-*' $cur
        printf '%s\\n' $__tel_opts
    else if test (count $args) -eq 0; and test (count $__tel_subs) -gt 0
        printf '%s\\n' $__tel_subs
    else
        __tel_values "$cmdpath" "#"(math (count $args) + 1) "$cur" "$args[1]" "$db" $tokens[1]
    end
end

complete -c tel -f -a '(__tel_complete)'
`;
}
