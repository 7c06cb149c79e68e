import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalNetwork } from "@chaind/harness/local-network";
import type { LocalTestnet } from "@chaind/harness/local-testnet";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { ReleaseServer } from "@chaind/harness/release-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

const cometbft = referenceBinary("cometbft");
if ("missing" in cometbft) console.log(`skipping the network upgrade test: ${cometbft.missing}`);
// cosmovisor 1.6 and 1.7 cannot be built here (the module proxy refuses them): 1.5 stands in (README).
const cosmovisor = referenceBinary("cosmovisor-1.5");
if ("missing" in cosmovisor)
  console.log(`node2 runs under visor, not stock cosmovisor: ${cosmovisor.missing}`);

const upgradeInfo = (node: LocalTestnet) =>
  JSON.parse(readFileSync(join(node.home, "data", "upgrade-info.json"), "utf8")) as {
    name: string;
    height: number;
  };

async function evidenceIn(node: LocalTestnet, height: number): Promise<unknown[]> {
  const res = await fetch(`${node.rpcHttpUrl}/block?height=${height}`);
  const body = (await res.json()) as { result: { block: { evidence: { evidence: unknown[] } } } };
  return body.result.block.evidence.evidence;
}

/**
 * Makes every snapshot chunk `home` serves a lie: each chunk file of a complete snapshot (its metadata written)
 * has a byte changed as soon as it is seen. Answers a function that stops it.
 */
function tamperSnapshots(home: string): () => void {
  const root = join(home, "data", "snapshots");
  const done = new Set<string>();
  const timer = setInterval(() => {
    for (const h of existsSync(root) ? readdirSync(root) : [])
      for (const f of /^\d+$/.test(h) ? readdirSync(join(root, h)) : []) {
        const folder = join(root, h, f);
        if (!existsSync(join(folder, "metadata.json"))) continue;
        for (const chunk of readdirSync(folder).filter((c) => /^\d+$/.test(c))) {
          const file = join(folder, chunk);
          if (done.has(file)) continue;
          const bytes = readFileSync(file);
          bytes[bytes.length >> 1] ^= 0xff;
          writeFileSync(file, bytes);
          done.add(file);
        }
      }
  }, 100);
  return () => clearInterval(timer);
}

/**
 * What the upgrade module exists for: four validators on the real CometBFT, each under its own visor, stop at the
 * same height, switch binaries unattended and agree on every block after; a validator that was down at the halt
 * and a full node that joins from genesis later both go through the upgrades they missed on their way to the tip.
 * The tests share one network and run in order: each starts where the one before left the chain.
 */
describe.skipIf("missing" in cometbft)(
  "a network of four validators upgrading together, each under its own visor",
  () => {
    let dir: string;
    let server: ReleaseServer;
    let net: LocalNetwork;
    const rel: Partial<Record<"v1" | "v2" | "v3", FixtureRelease>> = {};
    const planHeights: Record<string, number> = {};

    const tip = async (nodes: LocalTestnet[]) =>
      Math.max(...(await Promise.all(nodes.map((n) => n.height()))));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "e2e-network-"));
      const releases = join(dir, "releases");
      server = await ReleaseServer.start({ dir: releases });
      for (const v of ["v1", "v2", "v3"] as const) rel[v] = await fixtureRelease(releases, server.url, v);
      net = await LocalNetwork.create({
        dir: join(dir, "net"),
        validators: 4,
        genesisBinary: rel.v1!.binary,
        cometbft: (cometbft as { path: string }).path,
        // node2 under stock cosmovisor, the others under visor.
        cosmovisor: "path" in cosmovisor ? { node2: cosmovisor.path } : undefined,
        blockTime: "300ms",
        votingPeriod: "15s",
        visorEnv: { UNSAFE_SKIP_BACKUP: "true", DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" },
        // Room for a node that state-syncs: a snapshot every 20 blocks, the last 10 kept.
        snapshots: { interval: 20, keepRecent: 10 },
      });
      await net.start();
      await net.waitForHeight(2);
    }, 240_000);

    afterAll(async () => {
      await net?.stop();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("all four halt at the plan height with the same app hash, switch to v2 unattended (one under stock cosmovisor, one killed mid-switch) and agree on every block after", async () => {
      // Room for the proposal, four votes and the voting period (see votingPeriod).
      const height = await net.heightIn(45);
      planHeights.v2 = height;
      for (const n of net.nodes) n.mark();
      await net.proposeUpgrade({ name: "v2", height, info: rel.v2!.planInfo });
      const underVisor = net.nodes.filter((n) => !("path" in cosmovisor) || n !== net.node("node2"));
      await Promise.all(underVisor.map((n) => n.waitForLine(/pre-fetched and verified.*plan=v2/, 90_000)));

      // node1 loses power (visor, node and CometBFT at once) in the upgrade window: halted, not yet on v2.
      const cut = net.node("node1");
      await cut.waitForLine(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), 150_000);
      await cut.kill();
      cut.mark();
      await cut.start();
      await Promise.all(
        net.nodes.map(async (n) => {
          await n.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 150_000);
        }),
      );
      for (const n of net.nodes) expect(upgradeInfo(n)).toMatchObject({ name: "v2", height });
      await net.waitForHeight(height + 3);

      // The same chain everywhere: the block before the halt, the block v2 ran with its handler, and after.
      for (const h of [height - 1, height, height + 1, height + 2]) {
        expect(new Set(await net.blockHashes(h)).size, `block ${h}`).toBe(1);
        expect(new Set(await net.appHashes(h)).size, `app hash after block ${h}`).toBe(1);
        // No validator signed twice: no evidence of misbehaviour went into any block of the window.
        expect(await evidenceIn(net.nodes[0], h)).toEqual([]);
      }
      for (const n of net.nodes) {
        const applied = await n.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2");
        expect(applied.body.height).toBe(String(height));
      }
      expect([...server.requests.keys()].some((k) => k.startsWith("chaind-2.0.0-"))).toBe(true);
    }, 400_000);

    it("a validator down at the halt catches up after the other three resumed, upgrading to v3 on the way", async () => {
      const late = net.node("node3");
      const height = (await tip(net.nodes)) + 50;
      planHeights.v3 = height;
      await net.proposeUpgrade({ name: "v3", height, info: rel.v3!.planInfo });
      await late.stop();
      const running = net.nodes.filter((n) => n !== late);
      for (const n of net.nodes) n.mark();
      // Three of four equal validators hold more than two thirds: the network halts, upgrades and goes on.
      await Promise.all(
        running.map((n) => n.waitForLine(new RegExp(`applying upgrade "v3" at height: ${height}`), 150_000)),
      );
      await net.waitForHeight(height + 5, running);
      expect(await late.height()).toBeLessThan(height);

      await late.start();
      await late.waitForLine(new RegExp(`UPGRADE "v3" NEEDED at height: ${height}`), 120_000);
      await late.waitForLine(new RegExp(`applying upgrade "v3" at height: ${height}`), 120_000);
      const now = await tip(running);
      await late.waitForHeight(now + 2, 120_000);
      expect(new Set(await net.blockHashes(now)).size).toBe(1);
      expect(new Set(await net.appHashes(height)).size).toBe(1);
      const applied = await late.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v3");
      expect(applied.body.height).toBe(String(height));
    }, 400_000);

    it("a full node joining from genesis with v1 only reaches the tip through both past upgrades, unattended", async () => {
      const full = await net.addFullNode();
      await full.start();
      for (const [name, height] of Object.entries(planHeights)) {
        await full.waitForLine(new RegExp(`UPGRADE "${name}" NEEDED at height: ${height}`), 180_000);
        await full.waitForLine(new RegExp(`applying upgrade "${name}" at height: ${height}`), 120_000);
      }
      const validators = net.validators;
      const now = await tip(validators);
      await full.waitForHeight(now + 2, 120_000);
      expect(new Set(await net.blockHashes(now)).size).toBe(1);
      for (const [name, height] of Object.entries(planHeights)) {
        const applied = await full.rest<{ height: string }>(`/sdk/upgrade/v1beta1/applied_plan/${name}`);
        expect(applied.body.height).toBe(String(height));
      }
      // It is not a validator: the set is still the four.
      const set = await (await fetch(`${full.rpcHttpUrl}/validators`)).json();
      expect((set as { result: { total: string } }).result.total).toBe("4");
    }, 400_000);

    it("a node state-syncs past both upgrades from its peers' snapshots, refusing tampered chunks, and goes on under visor with v3", async () => {
      const [node0, node1, node2] = net.validators;
      const synced = `node${net.nodes.length}`;
      // node1 serves only tampered chunks; the node's first start dials node1 alone, so its chunks come from there.
      const stopTampering = tamperSnapshots(node1.home);
      let node: LocalTestnet;
      try {
        const trust = await net.trustPoint(node0);
        node = await net.addFullNode(synced, {
          peers: [node1],
          stateSync: { rpcServers: [node0, node2], ...trust },
        });
        await node.start();
        const refused = await node.waitForLine(
          /chunk checksum mismatch; rejecting sender.*sender=(\w+)/,
          150_000,
        );
        expect(refused[1]).toBe(net.description.nodes[1].node_id);
      } finally {
        stopTampering();
      }
      // Nothing of the tampered snapshot went in: the node starts again with honest peers and restores.
      await node.stop();
      expect(node.lines.some((l) => /restored snapshot/.test(l))).toBe(false);
      net.setPeers(node, [node0, node2]);
      node.mark();
      await node.start();
      const restored = await node.waitForLine(/restored snapshot.* height=(\d+)/, 150_000);
      const height = Number(restored[1]);
      expect(height).toBeGreaterThan(planHeights.v3);
      // v1 finds the chain past v3 and hands v3's plan to visor, which installs it; v3 runs the blocks after.
      await node.waitForLine(/upgrade handler is missing for v3 upgrade plan/, 60_000);
      const now = await tip(net.validators);
      await node.waitForHeight(now + 2, 150_000);
      expect(readlinkSync(join(node.home, "cosmovisor", "current"))).toMatch(/upgrades\/v3$/);
      expect(new Set(await net.blockHashes(now, [...net.validators, node])).size).toBe(1);
      for (const [name, at] of Object.entries(planHeights)) {
        const applied = await node.rest<{ height: string }>(`/sdk/upgrade/v1beta1/applied_plan/${name}`);
        expect(applied.body.height).toBe(String(at));
      }
      // It replayed none of the chain before the snapshot: its first block is the one after it.
      const early = (await (await fetch(`${node.rpcHttpUrl}/block?height=${height - 1}`)).json()) as {
        error?: unknown;
      };
      expect(early.error).toBeDefined();
    }, 500_000);
  },
);
