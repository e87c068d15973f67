; Bash tags for memlode: functions (`name() {` and `function name`), commands that may run
; them, and `source FILE` / `. FILE` (read by the Bash rules as imports of the file).

(function_definition) @def.function

(command name: (command_name (word) @ref.call))

(command name: (command_name (word) @_cmd (#any-of? @_cmd "source" "."))
  argument: (_)) @import
