/**
 * A certificate authority made at test time with openssl, and a server
 * certificate it signs for the test names. Nothing is trusted by the system:
 * rta is told of the CA through the operator's ca_file, or NODE_EXTRA_CA_CERTS.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./fixtures.ts";

export interface TestCa {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
}

export function makeCa(names: string[], days = 30): TestCa {
  const dir = tempDir("rta-ca-");
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  run([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "3",
    "-subj",
    "/CN=rta test CA",
  ]);
  run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", `/CN=${names[0]}`]);
  const sans = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
  writeFileSync(join(dir, "ext"), `subjectAltName=${sans}\n`);
  run([
    "x509",
    "-req",
    "-in",
    "srv.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "srv.pem",
    "-days",
    String(days),
    "-extfile",
    "ext",
  ]);
  return {
    dir,
    caFile: join(dir, "ca.pem"),
    key: readFileSync(join(dir, "srv.key"), "utf8"),
    cert: readFileSync(join(dir, "srv.pem"), "utf8"),
  };
}
