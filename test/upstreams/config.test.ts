import { describe, expect, test } from "bun:test";
import { parseConfig, readConfig } from "../../src/core/config.ts";
import { upstreamSecrets } from "../../src/core/configUpstreams.ts";

describe("[upstreams] in config.toml", () => {
  test("a stdio and an HTTP upstream read, with env, headers and tool settings", () => {
    const config = parseConfig(`
[upstreams.files]
command = ["node", "server.js", "/srv"]
env = { LOG_LEVEL = "warn" }
[upstreams.vendor]
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer s3cr3t-token" }
[upstreams.vendor.tools.tidyUp]
safety = "destructive"
[upstreams.vendor.tools.peek]
safety = "read"
trust = true
`);
    expect(config.upstreams?.files?.transport).toEqual({
      kind: "stdio",
      command: ["node", "server.js", "/srv"],
      env: { LOG_LEVEL: "warn" },
    });
    expect(config.upstreams?.vendor?.transport).toEqual({
      kind: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer s3cr3t-token" },
    });
    expect(config.upstreams?.vendor?.tools).toEqual({
      tidyUp: { safety: "destructive", trust: false },
      peek: { safety: "read", trust: true },
    });
    // the header's value and the token alone are the operator's secrets
    expect(upstreamSecrets(config.upstreams?.vendor as never)).toEqual(["Bearer s3cr3t-token", "s3cr3t-token"]);
    // a value too short to be a secret is not masked out of every answer
    expect(upstreamSecrets(config.upstreams?.files as never)).toEqual([]);
  });

  test("a bad entry is a problem of its own and leaves the rest standing", () => {
    const text = `
roots = ["/srv"]
[upstreams.good]
command = ["x"]
[upstreams.Bad]
command = ["x"]
[upstreams.both]
command = ["x"]
url = "http://127.0.0.1/mcp"
[upstreams.ftp]
url = "ftp://127.0.0.1/mcp"
[upstreams.creds]
url = "http://user:pw@127.0.0.1/mcp"
[upstreams.crlf]
url = "http://127.0.0.1/mcp"
headers = { X = "a\\r\\nInjected: yes" }
[upstreams.vhost]
url = "http://127.0.0.1/mcp"
headers = { host = "other.example" }
[upstreams.lax]
command = ["x"]
tools = { t = { safety = "free" } }
[upstreams.odd]
command = ["x"]
port = 3
`;
    const { config, problems } = readConfig(text);
    expect(Object.keys(config.upstreams ?? {})).toEqual(["good"]);
    expect(problems.map((p) => p.message.split(" ")[1])).toEqual([
      "[upstreams.Bad]",
      "[upstreams.both]",
      "[upstreams.ftp]",
      "[upstreams.creds]",
      "[upstreams.crlf]",
      "[upstreams.vhost]",
      "[upstreams.lax]",
      "[upstreams.odd]",
    ]);
    expect(problems.every((p) => p.code === "core.config.invalid")).toBe(true);
    // an approval binds the URL: a Host header would send it to another server behind the same address
    expect(problems.find((p) => p.message.includes("vhost"))?.message).toContain("must not name Host");
    // the config still reads: roots hold, and the good upstream is offered
    const read = parseConfig(text);
    expect(read.roots).toEqual(["/srv"]);
    // and no problem repeats a credential it was handed
    expect(problems.map((p) => p.message).join("\n")).not.toContain("pw@");
  });

  test("an env variable that makes the program load code is refused, with what to do instead", () => {
    for (const name of [
      "NODE_OPTIONS",
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "PYTHONPATH",
      "PYTHONSTARTUP",
      "RUBYOPT",
      "PERL5OPT",
      "BASH_ENV",
      "DYLD_INSERT_LIBRARIES",
      "JAVA_TOOL_OPTIONS",
      "ld_preload",
    ]) {
      const { config, problems } = readConfig(
        `[upstreams.files]\ncommand = ["node", "server.js"]\nenv = { LOG_LEVEL = "warn", ${name} = "--import /tmp/x.mjs" }\n[upstreams.good]\ncommand = ["x"]\n`,
      );
      expect(Object.keys(config.upstreams ?? {})).toEqual(["good"]);
      expect(problems).toHaveLength(1);
      expect(problems[0]?.code).toBe("core.config.invalid");
      expect(problems[0]?.message).toContain(
        `[upstreams.files] env must not set ${name}: it makes the program load code`,
      );
      expect(problems[0]?.message).toContain("start it by a script of your own that sets it");
      // the value is never repeated
      expect(problems[0]?.message).not.toContain("x.mjs");
    }
    // names that only look alike stay free
    const fine = readConfig(
      `[upstreams.files]\ncommand = ["x"]\nenv = { NODE_ENV = "production", MY_LD_PRELOAD_NOTE = "x" }\n`,
    );
    expect(fine.problems).toEqual([]);
  });

  test("another section's problem still refuses the config, as before", () => {
    expect(() => parseConfig(`roots = "x"\n[upstreams.good]\ncommand = ["x"]\n`)).toThrow("roots");
  });

  test("select names resources, templates and prompts; a bad entry is said with its path and a hint", () => {
    const good = parseConfig(`
[upstreams.docs]
url = "http://127.0.0.1/mcp"
select = ["resource:doc://readme", "template:doc://items/{id}/v/{rev}", "prompt:review"]
`);
    expect(good.upstreams?.docs?.select).toEqual([
      { kind: "resource", name: "doc://readme" },
      { kind: "template", name: "doc://items/{id}/v/{rev}" },
      { kind: "prompt", name: "review" },
    ]);
    for (const [select, why] of [
      ['"tool:x"', 'must be "resource:URI"'],
      ['"readme"', 'must be "resource:URI"'],
      ['"resource:"', "must name it after the kind"],
      ['"resource:doc://a b"', "no space or control character"],
      ['"resource:doc://{id}"', "select it as template:"],
      ['"template:doc://items"', "needs a {variable}"],
      ['"template:doc://items/{+path}"', "rta expands no other form"],
      ['"template:doc://items/{?q}"', "rta expands no other form"],
      ['"template:doc://{a}{b}"', "next to each other"],
      ['"template:doc://{a}/{a}"', "names a variable twice"],
      ['"prompt:review", "prompt:review"', "twice"],
      ['"resource:doc://x\\u0007"', "control character"],
      ["[1]", "select must be a list"],
      ['"x"]\nselect2 = ["y"', "has no setting"],
    ] as const) {
      const { config, problems } = readConfig(`[upstreams.docs]\nurl = "http://127.0.0.1/mcp"\nselect = [${select}]\n`);
      expect(config.upstreams?.docs).toBeUndefined();
      expect(problems[0]?.message).toContain("[upstreams.docs]");
      expect(problems[0]?.message).toContain(why);
      expect(problems[0]?.hint).toBeDefined();
    }
  });
});
