; inherits: ecma
; JavaScript only: `class A extends B` has the expression directly under class_heritage.

(class_heritage (identifier) @ref.extend)
(class_heritage (member_expression) @ref.extend)
