/** `npm run bench`: every benchmark in bench/, each printing its own figures. Run by hand, never as a timed test. */
const benches = [
  "./startup.ts",
  "./grants.ts",
  "./calls.ts",
  "./stages.ts",
  "./acceptance.ts",
  "./record.ts",
  "./mcp.ts",
  "./http.ts",
  "./fs.ts",
  "./grep.ts",
  "./jsonFramer.ts",
];
for (const bench of benches) await import(bench);
