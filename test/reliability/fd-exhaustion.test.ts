import { connect, type Socket } from "node:net";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWN_FILES_RESERVE } from "../../node/src/server/open-file-budget.js";
import { NodeProcess } from "../node/helpers/chaind-process.js";
import { makeTestHome } from "../node/helpers/test-home.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasPrlimit = (await execa("prlimit", ["--version"], { reject: false })).exitCode === 0;
if (!hasPrlimit) console.warn("skipping fd-exhaustion.test.ts: prlimit (util-linux) is not installed");

/** The node's open-file limit: its own files' reserve and 144 descriptors for connections. */
const LIMIT = OWN_FILES_RESERVE + 144;

/** Opens `count` connections to a listener's address; each stays counted until the server closes it. */
function connections(address: string, count: number): { open: () => number; closeAll: () => void } {
  const { hostname, port } = new URL(address.includes("//") ? address : `tcp://${address}`);
  const sockets = new Set<Socket>();
  for (let i = 0; i < count; i++) {
    const s = connect(Number(port), hostname);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
    sockets.add(s);
  }
  return {
    open: () => sockets.size,
    closeAll: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/**
 * Issue 29 point 7: connections take descriptors. With the listeners' caps (900 + 1000 + 1000) past the
 * process's open-file limit, a flood of idle connections took the node's last descriptors, and the sign state of
 * its next block failed with EMFILE and stopped it (`node stopped on an error: EMFILE: too many open files, open
 * '…/priv_validator_state.json.….tmp'`). The caps are now fitted to the limit at start.
 */
describe.skipIf(!hasPrlimit)("a node under a connection flood at a low open-file limit", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  const addr: Record<string, string> = {};
  const height = () => Math.max(0, ...node.committed().keys());

  beforeAll(async () => {
    home = makeTestHome({
      tuneApp: (c) => {
        c.api.enable = true;
        c.telemetry.enabled = true;
      },
    });
    node = new NodeProcess(home.home, [], undefined, undefined, ["prlimit", `--nofile=${LIMIT}:${LIMIT}`]);
    for (const name of ["rpc", "api", "grpc", "telemetry"])
      addr[name] = (await node.waitFor(new RegExp(`\\b${name} listening address=(\\S+)`)))[1];
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    home?.cleanup();
  });

  it("cuts its connection caps to fit, keeps committing through the flood, and answers once it ends", async () => {
    const warning = node.lines.find((l) => l.includes("connection caps cut"));
    expect(warning).toMatch(
      new RegExp(
        `the open-file limit \\(${LIMIT}\\) leaves 144 descriptors for connections .*config\\.toml rpc\\.max_open_connections 900 -> \\d+, app\\.toml api\\.max-open-connections 1000 -> \\d+, app\\.toml grpc\\.max-open-connections 1000 -> \\d+`,
      ),
    );
    // 150 idle connections at each listener: 600, past every descriptor the node has.
    const floods = Object.values(addr).map((a) => connections(a, 150));
    await sleep(1000);
    const before = height();
    await node.waitFor(new RegExp(`committed block .*height=${before + 5} `));
    // The node holds its caps' worth; the rest were closed as they arrived.
    const held = floods.reduce((n, f) => n + f.open(), 0);
    expect(held).toBeLessThanOrEqual(144);
    expect(held).toBeGreaterThan(0);
    for (const f of floods) f.closeAll();
    await sleep(300);
    expect((await fetch(`${addr.rpc}/status`)).status).toBe(200);
    expect((await fetch(`${addr.api}/cosmos/base/tendermint/v1beta1/blocks/latest`)).status).toBe(200);
    expect((await fetch(`${addr.telemetry}/metrics`)).status).toBe(200);
    await node.waitFor(new RegExp(`committed block .*height=${height() + 3} `));
    expect(node.lines.filter((l) => /EMFILE|stopped on an error/.test(l))).toEqual([]);
  });
});
