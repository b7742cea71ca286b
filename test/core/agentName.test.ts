import { describe, expect, test } from "bun:test";
import {
  agentNameFromClient,
  checkAgentName,
  isAgentName,
  namesAgent,
  optionalAgentName,
} from "../../src/core/agentName.ts";
import { RtaError } from "../../src/core/errors.ts";

describe("an agent's name", () => {
  test("is 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", () => {
    for (const good of ["claude", "c", "Claude.Code_2-x", "9", "x".repeat(64)]) expect(isAgentName(good)).toBe(true);
    for (const bad of ["", " ", "a b", "-a", ".a", "_a", "a\n", "ü", "x".repeat(65), "a/b", "a:b"])
      expect(isAgentName(bad)).toBe(false);
  });

  test("a bad one is core.input.invalid naming the flag, and a long one is not echoed", () => {
    const refusal = (name: string) => {
      try {
        checkAgentName(name);
      } catch (err) {
        return err as RtaError;
      }
      throw new Error("expected a refusal");
    };
    expect(refusal("")).toMatchObject({ code: "core.input.invalid", message: "--agent is empty" });
    expect(refusal("a\u001bb").message).toBe('--agent "a\\u001bb" is not an agent name');
    expect(refusal("y".repeat(5000)).message).toBe("--agent is 5000 characters long");
    expect(refusal("a b")).toBeInstanceOf(RtaError);
    expect(refusal("a b").hint).toContain("1 to 64");
    expect(optionalAgentName(undefined)).toBeUndefined();
    expect(optionalAgentName("claude")).toBe("claude");
  });

  test("a client's reported name is made into one", () => {
    expect(agentNameFromClient("claude-code")).toBe("claude-code");
    expect(agentNameFromClient(" Claude Desktop ")).toBe("Claude-Desktop");
    expect(agentNameFromClient("--x")).toBe("x");
    expect(agentNameFromClient("クロード")).toBe("unknown");
    expect(agentNameFromClient(undefined)).toBe("unknown");
    expect(agentNameFromClient("a".repeat(300))).toBe("a".repeat(64));
  });
});

test("a typed name names an agent whatever its case, and only that agent", () => {
  expect(namesAgent("claude-desktop", "Claude-Desktop")).toBe(true);
  expect(namesAgent("CLAUDE", "claude")).toBe(true);
  expect(namesAgent("claude", "claude.")).toBe(false);
  expect(namesAgent("claude", "claude-desktop")).toBe(false);
});
