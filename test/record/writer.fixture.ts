// Spawned by record.test.ts: appends N lines for one session, as a server process would.
import { FileRecord } from "../../src/record/append.ts";

const [file, session, count] = process.argv.slice(2) as [string, string, string];
const rec = new FileRecord(file, (err) => {
  console.error(err);
  process.exit(1);
});
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
rec.close();
