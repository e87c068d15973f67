"""JavaScript, TypeScript and TSX extraction."""

from __future__ import annotations

TS_SAMPLE = """\
import { A, B as C } from './util';
import * as ns from "../lib/x";
import React from 'react';
export { helper } from './helpers';

/** A widget that renders. */
export class Widget extends Base implements Drawable, Sized {
  private count = 1;
  #secret = 2;
  constructor() { super(); }
  /** Draw it. */
  public draw(ctx: Context): Frame {
    this.prepare();
    helper(ctx);
    return new Frame();
  }
  protected prepare() {}
}
export interface Drawable extends Node { draw(ctx: Context): Frame; }
export type Size = { w: number };
export enum Color { Red, Green = 2 }
export const LIMIT = 10;
const local = 3;
export const make = (n: number): Widget => new Widget();
export function run<T>(x: T): T { return x; }
namespace Shapes { export function area() {} }
"""


def test_typescript_symbols(extract, symbols):
    ex = extract("src/widget.ts", TS_SAMPLE)
    p = "src/widget.ts:"
    assert symbols(ex) == [
        ("class", p + "Widget", None),
        ("method", p + "Widget.constructor", p + "Widget"),
        ("method", p + "Widget.draw", p + "Widget"),
        ("method", p + "Widget.prepare", p + "Widget"),
        ("interface", p + "Drawable", None),
        ("method", p + "Drawable.draw", p + "Drawable"),
        ("type", p + "Size", None),
        ("type", p + "Color", None),
        ("constant", p + "Color.Red", p + "Color"),
        ("constant", p + "Color.Green", p + "Color"),
        ("constant", p + "LIMIT", None),
        ("function", p + "make", None),
        ("function", p + "run", None),
        ("module", p + "Shapes", None),
        ("function", p + "Shapes.area", p + "Shapes"),
    ]
    by = {s.name: s for s in ex.symbols}
    assert by["Widget"].doc == "A widget that renders."
    assert by["Widget"].signature == "class Widget extends Base implements Drawable, Sized"
    assert str(by["prepare"].visibility) == "protected"
    assert str(by["make"].visibility) == "public"
    assert str(by["Shapes"].visibility) == "internal"


def test_typescript_references(extract, refs):
    ex = extract("src/widget.ts", TS_SAMPLE)
    p = "src/widget.ts:"
    assert refs(ex, "import") == {
        ("import", "./util", "A", None),
        ("import", "./util", "B", None),
        ("import", "../lib/x", "", None),
        ("import", "react", "default", None),
        ("import", "./helpers", "helper", None),
    }
    assert refs(ex, "extend", "implement") == {
        ("extend", "", "Base", p + "Widget"),
        ("implement", "", "Drawable", p + "Widget"),
        ("implement", "", "Sized", p + "Widget"),
        ("extend", "", "Node", p + "Drawable"),
    }
    calls = refs(ex, "call")
    assert calls == {
        ("call", "this", "prepare", p + "Widget.draw"),
        ("call", "", "helper", p + "Widget.draw"),
        ("call", "", "Frame", p + "Widget.draw"),
        ("call", "", "Widget", p + "make"),
    }
    assert ("use", "", "Context", p + "Widget.draw") in refs(ex, "use")


def test_javascript_commonjs_tests_and_routes(extract, symbols, refs):
    ex = extract(
        "lib/app.test.js",
        "const express = require('express');\n"
        "const { Router, json: parse } = require('./router');\n"
        "class App extends events.EventEmitter { listen() { return http.createServer(this); } }\n"
        "exports.create = function () { return new App(); };\n"
        "App.prototype.use = function use(fn) { this.stack.push(fn); };\n"
        "app.get('/users/:id', function (req, res) { res.send(load(req)); });\n"
        "describe('server', () => { it('listens', () => { expect(1).toBe(1); }); });\n",
    )
    p = "lib/app.test.js:"
    assert symbols(ex) == [
        ("class", p + "App", None),
        ("method", p + "App.listen", p + "App"),
        ("function", p + "create", None),
        ("method", p + "App.use", p + "App"),
        ("endpoint", p + "GET /users/:id", None),
        ("test", p + "server", None),
        ("test", p + "server.listens", p + "server"),
    ]
    assert refs(ex, "import") == {
        ("import", "express", "", None),
        ("import", "./router", "Router", None),
        ("import", "./router", "json", None),
    }
    assert ("extend", "events", "EventEmitter", p + "App") in refs(ex, "extend")
    assert ("call", "", "load", p + "GET /users/:id") in refs(ex, "call")


def test_tsx_component(extract, symbols):
    ex = extract(
        "ui/Button.tsx",
        "export function Button(props: Props) { return <button onClick={props.go}>x</button>; }\n",
    )
    assert symbols(ex) == [("function", "ui/Button.tsx:Button", None)]
    assert ex.language == "tsx"
