; C# tags for memlode. Names are qualified by the file's namespace; a namespace nested in it
; (or one of several in a file) is a scope. Fields are candidates: the C# rules keep `const`
; and `static readonly` ones.

(class_declaration) @def.class
(struct_declaration) @def.class
(record_declaration) @def.class
(interface_declaration) @def.interface
(enum_declaration) @def.type
(enum_member_declaration) @def.constant
(delegate_declaration) @def.type
(method_declaration) @def.method
(constructor_declaration) @def.method
(field_declaration) @def.constant
(namespace_declaration) @scope

; bases: which is a class and which an interface is not written; an interface's name starts
; with I and a capital by the .NET naming rules
([(class_declaration (base_list (identifier) @ref.implement))
  (record_declaration (base_list (identifier) @ref.implement))]
  (#match? @ref.implement "^I[A-Z]"))
([(class_declaration (base_list (identifier) @ref.inherit))
  (record_declaration (base_list (identifier) @ref.inherit))]
  (#not-match? @ref.inherit "^I[A-Z]"))
([(class_declaration (base_list (generic_name (identifier) @ref.implement)))
  (record_declaration (base_list (generic_name (identifier) @ref.implement)))]
  (#match? @ref.implement "^I[A-Z]"))
([(class_declaration (base_list (generic_name (identifier) @ref.inherit)))
  (record_declaration (base_list (generic_name (identifier) @ref.inherit)))]
  (#not-match? @ref.inherit "^I[A-Z]"))
([(class_declaration (base_list (qualified_name) @ref.implement))
  (record_declaration (base_list (qualified_name) @ref.implement))]
  (#match? @ref.implement "(^|\\.)I[A-Z][^.]*$"))
([(class_declaration (base_list (qualified_name) @ref.inherit))
  (record_declaration (base_list (qualified_name) @ref.inherit))]
  (#not-match? @ref.inherit "(^|\\.)I[A-Z][^.]*$"))
(record_declaration (base_list (primary_constructor_base_type type: (_) @ref.inherit)))
(struct_declaration (base_list [(identifier) (qualified_name)] @ref.implement))
(struct_declaration (base_list (generic_name (identifier) @ref.implement)))
(interface_declaration (base_list [(identifier) (qualified_name)] @ref.extend))
(interface_declaration (base_list (generic_name (identifier) @ref.extend)))

(invocation_expression function: (identifier) @ref.call)
(invocation_expression function: (generic_name (identifier) @ref.call))
(invocation_expression function: (member_access_expression) @ref.call)
(object_creation_expression type: [(identifier) (qualified_name)] @ref.call)
(object_creation_expression type: (generic_name (identifier) @ref.call))

(parameter type: [(identifier) (qualified_name)] @ref.use)
(parameter type: (generic_name (identifier) @ref.use))
(method_declaration returns: [(identifier) (qualified_name)] @ref.use)
(property_declaration type: [(identifier) (qualified_name)] @ref.use)
(variable_declaration type: [(identifier) (qualified_name)] @ref.use)
(type_argument_list (identifier) @ref.use)

(using_directive) @import
