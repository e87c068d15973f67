; Shared by JavaScript, TypeScript and TSX: patterns valid in all three grammars.
; Captures: @def.<kind> on a definition, @ref.<kind> on the name a reference uses, @import.

(class_declaration) @def.class
(function_declaration) @def.function
(generator_function_declaration) @def.function
(method_definition) @def.method

(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function)]) @def.function

(program (lexical_declaration (variable_declarator name: (identifier)) @def.constant))
(program (export_statement
  declaration: (lexical_declaration (variable_declarator name: (identifier)) @def.constant)))

; exports.foo = function () {}, res.send = function send () {}, Foo.prototype.bar = ...
(expression_statement (assignment_expression
  left: (member_expression property: (property_identifier))
  right: [(arrow_function) (function_expression)]) @def.function)

(pair key: (property_identifier) value: [(arrow_function) (function_expression)]) @def.function

; test suites and cases: describe("...", () => ...), it("...", ...)
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @def.test
  (#match? @_fn "^(describe|it|test|suite)$"))

; express-style routes: app.get("/path", handler)
((call_expression
  function: (member_expression object: (identifier) property: (property_identifier) @_verb)
  arguments: (arguments . (string (string_fragment) @_path) . (_))) @def.endpoint
  (#match? @_verb "^(get|post|put|patch|delete|all|head|options)$")
  (#match? @_path "^/"))

((call_expression function: (identifier) @ref.call)
  (#not-match? @ref.call "^(require|describe|it|test|suite|expect)$"))
(call_expression function: (member_expression) @ref.call)
(new_expression constructor: (identifier) @ref.call)
(new_expression constructor: (member_expression) @ref.call)

(import_statement) @import
(export_statement source: (string)) @import
((call_expression function: (identifier) @_req arguments: (arguments . (string))) @import
  (#eq? @_req "require"))
