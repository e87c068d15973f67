; Elixir tags for memlode. Everything is a call: `defmodule`, `def`, `alias` and `if` alike are
; calls of an identifier, told apart by its name. The Elixir rules read each definition's name
; from its arguments; module names are global (`MyApp.Accounts.User`), so qualified names
; carry no file prefix.

(call target: (identifier) @_kw (#any-of? @_kw "defmodule" "defprotocol" "defimpl")
  (arguments)) @def.module
(call target: (identifier) @_kw
  (#any-of? @_kw "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate"
    "defn" "defnp")
  (arguments)) @def.function
; ExUnit: `test "name" do ... end`
(call target: (identifier) @_kw (#eq? @_kw "test") (arguments . (string)) (do_block)) @def.test

; local calls (`helper(x)`) and pipes into a bare name (`x |> helper`); keywords and the
; forms that define or import are calls too, and are not uses of a function
(call target: (identifier) @ref.call
  (#not-match? @ref.call "^(def[a-z]*|alias|import|use|require|test|describe|setup(_all)?|if|unless|case|cond|with|for|try|receive|quote|unquote(_splicing)?|fn|raise|reraise|throw|super)$"))
(binary_operator operator: "|>" right: (identifier) @ref.call)
; remote calls through a module (`Repo.get(...)`, `MyApp.Accounts.get_user(...)`)
(call target: (dot left: (alias) right: (identifier)) @ref.call)
; a struct built by its module (`%User{...}`)
(map (struct (alias) @ref.use))

; behaviours and protocol implementations
(unary_operator operator: "@"
  operand: (call target: (identifier) @_kw (#eq? @_kw "behaviour") (arguments (alias) @ref.implement)))
(call target: (identifier) @_kw (#eq? @_kw "defimpl") (arguments . (alias) @ref.implement))

; a module attribute's name is not a call (`@doc "..."`, `@impl true`), and what a typespec or
; callback names is not called
(unary_operator operator: "@" operand: (call target: (identifier) @ignore))
(unary_operator operator: "@"
  operand: (call target: (identifier) @_kw
    (#any-of? @_kw "spec" "type" "typep" "opaque" "callback" "macrocallback"))) @ignore

(call target: (identifier) @_kw (#any-of? @_kw "alias" "import" "use" "require")
  (arguments)) @import
