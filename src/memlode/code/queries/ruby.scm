; Ruby tags for memlode. Every module is captured twice: the Ruby rules keep it as a symbol
; when it has methods or constants of its own, else as a namespace (a scope, like a C++
; namespace), so `module Rake` reopened in forty files is not forty symbols.

(class) @def.class
(module) @def.module
(module) @scope
(method) @def.function
(singleton_method) @def.method
(program (assignment left: (constant)) @def.constant)
(body_statement (assignment left: (constant)) @def.constant)

; RSpec, minitest/spec and ActiveSupport test cases, named by their first argument (kept in
; test files only)
((call
  method: (identifier) @_case
  arguments: (argument_list . [(string) (constant) (scope_resolution)])) @def.test
  (#any-of? @_case "describe" "context" "it" "specify" "scenario" "feature" "test"))

; inheritance: the superclass and the modules mixed in
(class superclass: (superclass [(constant) (scope_resolution)] @ref.inherit))
((call
  method: (identifier) @_mixin
  arguments: (argument_list [(constant) (scope_resolution)] @ref.inherit))
  (#any-of? @_mixin "include" "prepend" "extend"))

; calls: with a receiver or arguments (a bare `name` is a local or a call, which only running
; the code tells); `Foo.new` is a call of the class
((call method: (_) @_method) @ref.call
  (#not-eq? @_method "new"))
((call
  receiver: [(constant) (scope_resolution)] @ref.call
  method: (identifier) @_new)
  (#eq? @_new "new"))

((call method: (identifier) @_require arguments: (argument_list (string))) @import
  (#any-of? @_require "require" "require_relative" "load" "autoload"))
