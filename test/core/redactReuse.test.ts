/**
 * Redaction leaves a result it does not change as it was, and copies only
 * what it changes: the same answers as a copy of everything, at less cost.
 */
import { describe, expect, test } from "bun:test";
import { Redactor } from "../../src/core/redact.ts";

const DATA = "/home/u/.local/share/rta";
const r = new Redactor({ data: [DATA], config: ["/home/u/.config/rta"] });

describe("redaction copies only what it changes", () => {
  test("a result with nothing to redact is given back itself, its parts included", () => {
    const inner = { kernel: "6.1.0-18-amd64", load: [0.1, 0.2], ok: true, none: null };
    const value = { host: "web-1", os: inner, list: ["a", "b"] };
    const shown = r.value(value);
    expect(shown).toBe(value);
    expect(shown.os).toBe(inner);
  });

  test("a change deep inside copies the path to it and leaves its siblings shared", () => {
    const sibling = { a: "x" };
    const value = { first: sibling, deep: { list: ["plain", `${DATA}/kv.age`, "after"], keep: 1 }, last: "z" };
    const shown = r.value(value);
    expect(shown).not.toBe(value);
    expect(shown.first).toBe(sibling);
    expect(shown.deep.list).toEqual(["plain", "<data dir>/kv.age", "after"]);
    expect(JSON.stringify(shown)).toBe(
      '{"first":{"a":"x"},"deep":{"list":["plain","<data dir>/kv.age","after"],"keep":1},"last":"z"}',
    );
    // the value given is not changed
    expect(value.deep.list[1]).toBe(`${DATA}/kv.age`);
  });

  test("keys are renamed and a credential's value masked, in their order", () => {
    const value = { a: 1, [`${DATA}/x`]: 2, token: "s3cret", z: "https://u:p@h/" };
    expect(JSON.stringify(r.value(value))).toBe('{"a":1,"<data dir>/x":2,"token":"***","z":"https://***@h/"}');
  });

  test("a __proto__ key stays a key, copied or not", () => {
    const kept = JSON.parse('{"__proto__":{"x":"y"}}');
    expect(JSON.stringify(r.value(kept))).toBe('{"__proto__":{"x":"y"}}');
    const changed = JSON.parse(`{"__proto__":{"x":"${DATA}"}}`);
    const shown = r.value(changed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(JSON.stringify(shown)).toBe('{"__proto__":{"x":"<data dir>"}}');
  });

  test("an object made by a class is copied as its own keys, as before", () => {
    class Point {
      x = 1;
      get y() {
        return 2;
      }
    }
    const shown = r.value({ p: new Point(), d: new Date(0) });
    expect(Object.getPrototypeOf(shown.p)).toBe(Object.prototype);
    expect(JSON.stringify(shown)).toBe('{"p":{"x":1},"d":{}}');
  });

  test("what the agent sent is asked for only when a text names a place", () => {
    let asked = 0;
    const kept = () => {
      asked++;
      return [`${DATA}/mine`];
    };
    expect(r.value({ a: "nothing here", b: ["x"] }, kept)).toEqual({ a: "nothing here", b: ["x"] });
    expect(asked).toBe(0);
    expect(r.value({ a: `${DATA}/mine and ${DATA}/other`, b: `${DATA}/b` }, kept)).toEqual({
      a: `${DATA}/mine and <data dir>/other`,
      b: "<data dir>/b",
    });
    expect(asked).toBe(1);
  });

  test("a key is read the same on every call, a key that names a place by what each call sent", () => {
    const key = `${DATA}/mine`;
    for (let i = 0; i < 3; i++) {
      expect(Object.keys(r.value({ [key]: 1, "a-b": 2 }, [key]))).toEqual([key, "a-b"]);
      expect(Object.keys(r.value({ [key]: 1, "a-b": 2 }))).toEqual(["<data dir>/mine", "a-b"]);
      expect(r.value({ Authorization: "Bearer x", authorization: ["y"] })).toEqual({
        Authorization: "***",
        authorization: ["***"],
      });
    }
  });

  test("a short string reads the same on every call, one that names a place by what each call sent", () => {
    const mine = `${DATA}/m`;
    for (let i = 0; i < 3; i++) {
      expect(r.value(["--token=abc", "plain", mine], [mine])).toEqual(["--token=***", "plain", mine]);
      expect(r.value(["--token=abc", "plain", mine])).toEqual(["--token=***", "plain", "<data dir>/m"]);
    }
  });
});
