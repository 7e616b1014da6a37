import { describe, expect, test } from "bun:test";
import { DOMAIN, canonicalJson, digestOf } from "../../src/approvals/digest.ts";

describe("canonical JSON", () => {
  test("sorts keys by UTF-16 code units, at every depth, and drops no array item", () => {
    expect(canonicalJson({ b: 1, a: [3, { d: 1, c: 2 }], "\u{1F600}": 0, "\uFFFF": 1 })).toBe(
      '{"a":[3,{"c":2,"d":1}],"b":1,"\u{1F600}":0,"\uFFFF":1}',
    );
  });
  test("numbers in ECMAScript form", () => {
    expect(canonicalJson([100.0, 1e30, 0.1, -0, 1e-7])).toBe("[100,1e+30,0.1,0,1e-7]");
  });
  test("no whitespace; strings escaped as JSON does", () => {
    expect(canonicalJson({ s: 'a"b\n\u0001', t: true, n: null })).toBe('{"n":null,"s":"a\\"b\\n\\u0001","t":true}');
  });
  test("refuses what JSON cannot carry exactly", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson(Infinity)).toThrow();
    expect(() => canonicalJson(10n)).toThrow();
    expect(() => canonicalJson([undefined])).toThrow();
  });
  test("undefined object fields are left out, as JSON leaves them", () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
  test("a JSON round trip gives the same bytes", () => {
    const value = { z: [1.5, "é", { y: null }], a: 2 ** 53 - 1 };
    expect(canonicalJson(JSON.parse(canonicalJson(value)))).toBe(canonicalJson(value));
  });
});

describe("digests", () => {
  test("do not depend on key order", () => {
    expect(digestOf(DOMAIN.task, { a: 1, b: 2 })).toBe(digestOf(DOMAIN.task, { b: 2, a: 1 }));
  });
  test("are separated by domain", () => {
    expect(digestOf(DOMAIN.task, { a: 1 })).not.toBe(digestOf(DOMAIN.call, { a: 1 }));
  });
  test("are SHA-256 over domain, NUL and the canonical bytes", () => {
    const expected = new Bun.CryptoHasher("sha256").update(`${DOMAIN.call}\0{"a":1}`).digest("hex");
    expect(digestOf(DOMAIN.call, { a: 1 })).toBe(expected);
  });
});
