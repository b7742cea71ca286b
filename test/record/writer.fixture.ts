// Spawned by record.test.ts: appends N lines for one session, as a server process would, its key and
// checkpoint beside the file as in a data dir.
import { dirname, join } from "node:path";
import { GateStore } from "../../src/gate/gateStore.ts";
import { FileRecord, sessionMark } from "../../src/record/append.ts";
import { recordKey } from "../../src/record/key.ts";

const [file, session, count] = process.argv.slice(2) as [string, string, string];
const data = dirname(file);
const rec = new FileRecord(file, {
  key: () => recordKey(data),
  checkpoints: () => new GateStore(join(data, "gate.db")),
  onFailure: (err) => {
    console.error(err);
    process.exit(1);
  },
});
rec.append(sessionMark("start", session, new Date(), "stdio"));
for (let i = 0; i < Number(count); i++) {
  rec.append({
    time: new Date().toISOString(),
    session,
    agent: "a".repeat(200),
    client: "writer",
    transport: "stdio",
    capability: "sys_info",
    outcome: "ok",
    duration_ms: i,
    args: ["x", "y"],
  });
}
rec.append(sessionMark("end", session, new Date(), "stdio"));
rec.close();
