/**
 * The shared store's password is an operator secret: no refusal says it, however it is spelt in the URL (encoded, a
 * raw `@`, control characters, a `?password=`), even when the server or the client library repeats it; a store that
 * is not there, a database that does not exist and a password the server refuses each name the store without it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { maskSecrets } from "../../../src/core/secrets.ts";
import { safeUrl, secretsOf, storeFailure } from "../../../src/gate/store/pgSchema.ts";
import { PgGateStore } from "../../../src/gate/store/pgStore.ts";
import { pgServer } from "../../support/pg.ts";
import { type EchoServer, startPgEcho } from "../../support/pgEcho.ts";

const pg = await pgServer();

/** What opening the store at `url` refused with (it must refuse). */
function refusal(url: string): { code: string; message: string; hint: string } {
  try {
    new PgGateStore(url).close();
  } catch (e) {
    const err = e as { code: string; message: string; hint: string };
    return { code: err.code, message: err.message, hint: err.hint };
  }
  throw new Error(`the store at ${safeUrl(url)} opened`);
}

/** Each password spelling, with what must not be said of it (as written, and as a server or a parser spells it). */
const PASSWORDS: [string, string[]][] = [
  ["Sup3r%2Fs3cr3t", ["Sup3r", "s3cr3t"]],
  ["p@ss@w0rd9", ["p@ss", "w0rd9", "p%40ss"]],
  ["esc\u001b[31mRedPw7", ["RedPw7"]],
  ["tab\tNewPw8", ["NewPw8"]],
  ["line\nBreakPw6", ["BreakPw6"]],
  ["sp ace%20Pw5", ["ace", "Pw5"]],
];

describe("a message that repeats the store's URL or password", () => {
  test("is said without either, however the password is spelt", () => {
    for (const [password, words] of PASSWORDS) {
      const url = `postgres://rta:${password}@127.0.0.1:5432/db`;
      const raw = password.replace(/%2F/g, "/").replace(/%20/g, " ");
      const err = storeFailure(url, new Error(`failed: ${url} | ${password} | ${raw} | ${encodeURIComponent(raw)}`));
      expect(err.code).toBe("core.store.unavailable");
      for (const word of words) expect(err.message).not.toContain(word);
      expect(err.message).toContain("the shared store at postgres://rta@127.0.0.1:5432/db could not be used");
    }
  });

  test("a password in the query is a secret too, and a URL no parser reads is not repeated", () => {
    const url = "postgres://rta@127.0.0.1:5432/db?sslmode=disable&password=Query%2FPw7&sslpassword=KeyPw4";
    expect(secretsOf(url)).toEqual(expect.arrayContaining(["Query/Pw7", "Query%2FPw7", "KeyPw4"]));
    const said = storeFailure(url, new Error("got Query/Pw7 and Query%2FPw7 and KeyPw4")).message;
    for (const word of ["Query", "Pw7", "KeyPw4"]) expect(said).not.toContain(word);
    expect(said).toContain("postgres://rta@127.0.0.1:5432/db could not");
    const broken = "postgres://rta:Br0ken/Pw3@127.0.0.1:5432/db";
    const brokenSaid = storeFailure(broken, new Error(`Invalid URL ${broken} Br0ken/Pw3`)).message;
    expect(brokenSaid).not.toContain("Br0ken");
    expect(brokenSaid).toContain("(a store address that does not parse)");
  });

  test("a command line that carries it, as an agent may see one in a process list, is masked whole", () => {
    const line = "rta mcp serve --store postgres://rta:p@ss@w0rd9@127.0.0.1:5432/db?password=QueryPw7 --http :8722";
    expect(maskSecrets(line)).toBe("rta mcp serve --store postgres://***@127.0.0.1:5432/db?password=*** --http :8722");
  });

  test("a URL with no password has no secret, and its words are left as they are", () => {
    expect(secretsOf("postgres://rta@127.0.0.1:5432/db")).toEqual([]);
    const said = storeFailure("postgres://rta@127.0.0.1:5432/db", new Error('database "db" does not exist')).message;
    expect(said).toContain('database "db" does not exist');
  });
});

describe("a server that refuses the password and says it back", () => {
  let echo: EchoServer;
  beforeAll(async () => {
    echo = await startPgEcho();
  });
  afterAll(() => echo.stop());

  test("is core.store.unavailable with the refusal, and no spelling of the password", () => {
    for (const [password, words] of PASSWORDS) {
      const err = refusal(`postgres://rta:${password}@127.0.0.1:${echo.port}/db`);
      expect(err.code).toBe("core.store.unavailable");
      expect(err.message).toContain(`the shared store at postgres://rta@127.0.0.1:${echo.port}/db could not be used`);
      expect(err.message).toContain("password authentication failed");
      for (const word of words) expect(`${err.message} ${err.hint}`).not.toContain(word);
    }
  });

  test("a password given as ?password= is not said back either", () => {
    const err = refusal(`postgres://rta@127.0.0.1:${echo.port}/db?sslmode=disable&password=Query%2FPw7`);
    expect(err.message).toContain("password authentication failed");
    expect(err.message).not.toContain("Pw7");
  });
});

test("a port on 127.0.0.1 where no server listens names the store, not its password", () => {
  const err = refusal("postgres://rta:Cl0sed%40Pw1@127.0.0.1:1/db");
  expect(err.code).toBe("core.store.unavailable");
  expect(err.message).toContain("postgres://rta@127.0.0.1:1/db");
  expect(err.message).not.toContain("Cl0sed");
  expect(err.message).not.toContain("Pw1");
});

describe.skipIf(pg === null)("on a PostgreSQL server", () => {
  test("a database that does not exist is named; the password is not", () => {
    const u = new URL(pg?.url as string);
    u.password = "Mi55ing%2FDbPw";
    u.pathname = "/no_such_db_here";
    const err = refusal(u.toString());
    expect(err.code).toBe("core.store.unavailable");
    expect(err.message).toContain('database "no_such_db_here" does not exist');
    for (const word of ["Mi55ing", "DbPw"]) expect(err.message).not.toContain(word);
  });
});
