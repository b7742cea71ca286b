/**
 * A line's mac is HMAC-SHA256 under the data dir's key, whatever key was
 * asked for before it: the keyed hash kept between lines is never another
 * key's.
 */
import { expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { macOf } from "../../src/record/lineText.ts";

const hmac = (key: Buffer, prev: string, body: string) =>
  createHmac("sha256", key).update(`${prev}\n${body}`).digest("hex");

test("the mac is the keyed HMAC of the previous mac, a newline and the line, key after key", () => {
  const a = Buffer.alloc(32, 1);
  const b = Buffer.alloc(32, 2);
  for (const [key, prev, body] of [
    [a, "", '{"n":1}'],
    [a, "ab", '{"n":2,"é":"☃"}'],
    [b, "ab", '{"n":2,"é":"☃"}'],
    [a, "cd", '{"n":3}'],
  ] as const)
    expect(macOf(key, prev, body)).toBe(hmac(key, prev, body));
});

test("a key buffer changed in place is a new key", () => {
  const key = Buffer.alloc(32, 3);
  expect(macOf(key, "x", "{}")).toBe(hmac(key, "x", "{}"));
  key[0] = 9;
  expect(macOf(key, "x", "{}")).toBe(hmac(Buffer.from(key), "x", "{}"));
});
