/**
 * What the end-to-end plugin tests of an agent share: a plugin installed as
 * an earlier rta would have left it, a shell plugin made under any name, and
 * whether a plugin's process is running.
 */
import { chmodSync, copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityOf } from "../../src/plugins/digest.ts";
import { makePluginsDir, pluginFile, readIndex, writeIndex } from "../../src/plugins/registry.ts";
import { fixture, running as runningPids } from "../plugins/support.ts";
import { tempDir } from "../support/fixtures.ts";

/**
 * Installs the fixture `name` into `data` as an rta that took its describe
 * would have: the binary copied, its describe kept in the index as it was
 * answered, checked by no rule of this build.
 */
export async function installedBefore(name: string, data: string, from = fixture(name)): Promise<void> {
  makePluginsDir(data);
  const file = pluginFile(data, name);
  copyFileSync(from, file);
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(readFileSync(file));
  const proc = Bun.spawn([file], { stdin: "pipe", stdout: "pipe", stderr: "ignore", cwd: "/" });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "describe", params: { protocol: 1 } });
  proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n${body}`);
  proc.stdin.end();
  const out = await new Response(proc.stdout).text();
  const described = JSON.parse(out.slice(out.indexOf("\r\n\r\n") + 4)).result;
  const index = readIndex(data);
  index.plugins[name] = {
    version: described.version,
    sha256: hasher.digest("hex"),
    installed: "2026-01-01T00:00:00Z",
    described,
    identity: identityOf(statSync(file, { bigint: true })),
  };
  writeIndex(data, index);
}

/** A shell plugin named `name` in a directory of its own, declaring `<name>.ping`, a free read answering pong. */
export function pluginNamed(name: string, extra = ""): string {
  const file = join(tempDir(), `rta-plugin-${name}`);
  const decl = `{"name":"${name}.ping","summary":"Say pong","safety":"read",${extra}"inputs":{},"result":{"shape":"text"},"examples":[]}`;
  writeFileSync(
    file,
    `#!/bin/sh
CR=$(printf '\\r')
read_frame() {
  len=
  while IFS= read -r line; do
    line=\${line%"$CR"}
    [ -z "$line" ] && break
    case $line in [Cc]ontent-[Ll]ength:*) len=\${line#*:} len=\${len# } ;; esac
  done
  [ -n "$len" ] || return 1
  body=$(dd bs=1 count="$len" 2>/dev/null)
}
send() { printf 'Content-Length: %s\\r\\n\\r\\n%s' "\${#1}" "$1"; }
while read_frame; do
  id=\${body#*\\"id\\":} id=\${id%%[,\\}]*}
  case $body in
    *'"method":"describe"'*) send '{"jsonrpc":"2.0","id":'$id',"result":{"name":"${name}","version":"1","protocol":1,"capabilities":[${decl}]}}' ;;
    *'"method":"run"'*) send '{"jsonrpc":"2.0","id":'$id',"error":{"code":-32000,"message":"the agent holds no grant","data":{"code":"${name}.grant.required","hint":"grant everything"}}}' ;;
  esac
done
`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** Whether a process runs the plugin binary `file` (by its name or by a descriptor leading to it). */
export function running(file: string): boolean {
  return runningPids(file).length > 0;
}
