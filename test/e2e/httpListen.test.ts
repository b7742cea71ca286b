/**
 * End to end: `rta mcp serve --http` at an address it cannot listen on says why in the person's terms, with a hint
 * that fits: the system's words ("EADDRNOTAVAIL", "ENOENT: no such file or directory") were passed on as the
 * message, and every failure was hinted as a busy port.
 */
import { describe, expect, test } from "bun:test";
import { noStack, rta } from "../support/rta.ts";

describe("rta mcp serve --http where it cannot listen", () => {
  test("an address not of this machine is named as such, not as a busy port", async () => {
    // 192.0.2.1 is reserved for documentation: no machine has it, and binding to it sends nothing.
    const ran = await rta(["mcp", "serve", "--http", "192.0.2.1:8722"]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(
      "rta: error: cannot listen on 192.0.2.1:8722: 192.0.2.1 is not an address of this machine (core.input.invalid)",
    );
    expect(ran.stderr).toContain("rta: hint: give a local address, e.g. --http 127.0.0.1:8722");
    expect(ran.stderr).not.toContain("EADDRNOTAVAIL");
    expect(noStack(ran.stderr)).toBe(true);
  });

  test("a port in use is named, with the hint to choose another", async () => {
    const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const ran = await rta(["mcp", "serve", "--http", `127.0.0.1:${busy.port}`]);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`port ${busy.port} is in use or cannot be used (core.input.invalid)`);
      expect(ran.stderr).toContain("rta: hint: choose another port with --http HOST:PORT");
      expect(ran.stderr).not.toContain("Failed to start server");
    } finally {
      busy.stop(true);
    }
  });
});
