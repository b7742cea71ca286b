import { expect, test } from "bun:test";
import { bytesWords, durationWords, relativeWords } from "../../src/core/words.ts";

test("durations in their largest whole unit", () => {
  expect(durationWords(0)).toBe("0 s");
  expect(durationWords(59)).toBe("59 s");
  expect(durationWords(90)).toBe("1 min");
  expect(durationWords(3 * 3600 + 5)).toBe("3 h");
  expect(durationWords(-2 * 86400)).toBe("2 d");
});

test("relative times say which way", () => {
  expect(relativeWords(1000 + 3 * 3600, 1000)).toBe("in 3 h");
  expect(relativeWords(1000 - 120, 1000)).toBe("2 min ago");
  expect(relativeWords(1000, 1000)).toBe("now");
});

test("bytes in binary units", () => {
  expect(bytesWords(512)).toBe("512 B");
  expect(bytesWords(1536)).toBe("1.5 KiB");
  expect(bytesWords(5 * 1024 ** 3)).toBe("5.0 GiB");
});
