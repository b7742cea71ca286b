import { expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../../src/core/duration.ts";

test("durations as a person types them", () => {
  expect(parseDuration("30s")).toBe(30_000);
  expect(parseDuration("5m")).toBe(300_000);
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("2d")).toBe(172_800_000);
});

test("anything else is core.input.invalid", () => {
  for (const bad of ["", "5", "5x", "m5", "0m", "-5m", "5m 3s", "1.5h", "5mm"]) {
    expect(() => parseDuration(bad)).toThrow(/is not a duration/);
  }
});

test("a duration past a century is core.input.range: its end would not be a date", () => {
  expect(parseDuration("36500d")).toBe(36_500 * 86_400_000);
  for (const long of ["36501d", "99999999d", "876001h"]) {
    expect(() => parseDuration(long)).toThrow(/longer than/);
  }
});

test("formatted in the fewest units", () => {
  expect(formatDuration(5_400_000)).toBe("1h30m");
  expect(formatDuration(300_000)).toBe("5m");
  expect(formatDuration(0)).toBe("0s");
  expect(formatDuration(90_061_000)).toBe("1d1h1m1s");
});
