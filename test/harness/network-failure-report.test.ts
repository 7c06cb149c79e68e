import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalNetwork } from "@chaind/harness/local-network";
import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { afterAll, describe, expect, it, vi } from "vitest";

const cometbft = referenceBinary("cometbft");

/**
 * A network test that fails in CI must be diagnosable from its output alone: which node went down, how its
 * supervisor ended, and what the node printed last (a node that died takes its logs with its temp folder).
 */
describe.skipIf("missing" in cometbft)(
  "a network whose validator goes down says so when a test fails",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "network-report-"));
    let net: LocalNetwork | undefined;

    afterAll(async () => {
      await net?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("names the downed node, how its supervisor ended and its last lines, in a wait that times out and in an RPC read", async () => {
      const launcher = join(dir, "bin", "chaind");
      mkdirSync(join(dir, "bin"));
      writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
      chmodSync(launcher, 0o755);
      net = await LocalNetwork.create({
        dir: join(dir, "net"),
        validators: 2,
        genesisBinary: launcher,
        cometbft: (cometbft as { path: string }).path,
        blockTime: "200ms",
      });
      await net.start();
      await net.waitForHeight(2);
      const [node0, node1] = net.validators;
      expect(net.report()).toMatch(/node0: running, last output [\d.]+ s ago: /);

      // node1's daemon dies (its CometBFT ends with it): visor, with no upgrade due, ends too.
      const said = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const status = JSON.parse(readFileSync(join(node1.home, "cosmovisor", "visor-status.json"), "utf8"));
        process.kill(status.child_pid, "SIGKILL");
        await vi.waitFor(() => expect(node1.running).toBe(false), { timeout: 30_000, interval: 100 });
        // Said at once, with the node's last lines, whatever the test goes on to do.
        await vi.waitFor(() => expect(said).toHaveBeenCalled(), { timeout: 5_000, interval: 100 });
        expect(String(said.mock.calls[0][0])).toMatch(
          /^LocalNetwork: node1: DOWN: its supervisor exited with status \d+ at \S+ without being asked to stop; its last lines:\n[\s\S]*daemon exited/,
        );
      } finally {
        said.mockRestore();
      }
      expect(node1.exit).toMatchObject({ unexpected: true });

      const report = net.report();
      expect(report).toMatch(/node0: running/);
      expect(report).toMatch(
        /node1: DOWN: its supervisor exited with status \d+ .*; its last lines:\n {4}\| /,
      );
      expect(report).toContain(`    | ${node1.lines.at(-1)}`);

      // The failures a test sees carry the report.
      await expect(node0.waitForLine(/a line that never comes/, 200)).rejects.toThrow(
        /timed out waiting for[\s\S]*node1: DOWN: its supervisor exited/,
      );
      await expect(net.blockHashes(1)).rejects.toThrow(
        /node1's RPC did not answer \S+: connect ECONNREFUSED[\s\S]*node1: DOWN/,
      );

      // A node the caller stopped is not down.
      await net.stop([node0]);
      expect(net.report()).toMatch(/node0: stopped by the caller/);
    }, 120_000);
  },
);
