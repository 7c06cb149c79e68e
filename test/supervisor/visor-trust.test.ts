import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { ReleaseServer } from "@chaind/harness/release-server";
import { describe, expect, it, type TestContext } from "vitest";
import { sourceOf, writeSource } from "../../supervisor/src/artifacts/artifact-source.js";
import { FakeNodeApi } from "./fake-node-api.js";
import { fakeBinary, sha256File, visorHome } from "./visor-home.js";

/**
 * Issue 20, points 5 and 6: visor acts only on what it can authenticate. Real visor and daemon processes, a
 * real release server on loopback; the node's API is FakeNodeApi (the fake daemon has none), which plays the
 * home's node or, where the test says so, another local user's server on a port the node's config names.
 */
/** One home, release server and set of node APIs per test, so the tests run side by side. */
async function setup(onTestFinished: TestContext["onTestFinished"]) {
  const h = visorHome();
  const files = join(h.root, "served");
  mkdirSync(files);
  const releases = await ReleaseServer.start({ dir: files });
  const servers: FakeNodeApi[] = [];
  onTestFinished(async () => {
    for (const s of servers.splice(0)) await s.close();
    await releases.close();
    h.cleanup();
  });
  expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  // Two releases for the one plan "v2": A, then B, as a re-proposal replacing a bad release would.
  for (const v of ["v2a", "v2b", "evil"]) copyFileSync(fakeBinary(h.root, v), join(files, `fake-${v}`));
  const cosmovisor = (...p: string[]) => join(h.home, "cosmovisor", ...p);
  const infoFor = (v: string) =>
    JSON.stringify({
      binaries: {
        any: `${releases.fileUrl(`fake-${v}`)}?checksum=sha256:${sha256File(join(files, `fake-${v}`))}`,
      },
    });
  const sha = (v: string) => sha256File(join(files, `fake-${v}`));
  const asideIn = (dir: string) =>
    existsSync(dir) ? readdirSync(dir).filter((f) => /^v2\.replaced-/.test(f)) : [];

  async function nodeApi(identity = h.identity): Promise<FakeNodeApi> {
    const s = await FakeNodeApi.start({ home: h.home, identity });
    servers.push(s);
    return s;
  }

  /** visor with pre-fetching and downloads on, in front of a fake daemon making a block every 100 ms. */
  const prefetching = {
    VISOR_PREFETCH: "true",
    DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    FAKE_BLOCK_MS: "100",
  };

  /** A daemon that halts for v2 naming `info`, one block short of the halt until the test opens the gate. */
  const halting = (info: string) => ({
    ...prefetching,
    UNSAFE_SKIP_BACKUP: "true",
    FAKE_HALTS: "v1:10:v2",
    FAKE_INFO: info,
    FAKE_HALT_GATE: join(h.root, "gate"),
  });
  const upgradedToA = async () => {
    const v = h.start(["start"], {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_INFO: infoFor("v2a"),
      FAKE_HALTS: "v1:5:v2",
    });
    await v.waitFor(/v2a running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");
    expect(existsSync(cosmovisor("upgrades", "v2", ".visor-source.json"))).toBe(true);
  };

  return {
    h,
    files,
    releases,
    cosmovisor,
    infoFor,
    sha,
    asideIn,
    nodeApi,
    prefetching,
    halting,
    upgradedToA,
  };
}

// Side by side, each test waits on its own visor and fake daemon; on a saturated CI machine one can take close
// to a minute, so the limit is twice the default.
describe.concurrent("visor trusts only upgrade-info.json and the home's own node", {
  timeout: 120_000,
}, () => {
  it("A pre-fetched, the halt names B under the same plan name: visor runs B and sets A aside", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, sha, asideIn, nodeApi, halting } = await setup(onTestFinished);
    const node = await nodeApi();
    node.plan = { name: "v2", height: 10, info: infoFor("v2a") };
    const v = h.start(["start"], { VISOR_RPC_ADDRESS: node.url, ...halting(infoFor("v2b")) });
    await v.waitFor(/pre-fetched and verified .*plan=v2/);
    // A network-learned plan is staged aside, never installed where a binary would run.
    expect(sha256File(cosmovisor("prefetch", "v2", "artifact"))).toBe(sha("v2a"));
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);

    writeFileSync(join(h.root, "gate"), "");
    await v.waitFor(/v2b running/);
    expect(v.output).toMatch(/not using a binary fetched earlier: it is not what upgrade-info.json names/);
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");
    expect(sha256File(cosmovisor("upgrades", "v2", "bin", "fake"))).toBe(sha("v2b"));
    // A is kept for the operator to look at, not deleted.
    const aside = asideIn(cosmovisor("prefetch"));
    expect(aside).toHaveLength(1);
    expect(sha256File(cosmovisor("prefetch", aside[0], "artifact"))).toBe(sha("v2a"));
    expect(releases.requests.get("fake-v2a")).toBe(1);
    expect(releases.requests.get("fake-v2b")).toBe(1);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("the plan changes to B under the same name before the halt: A is set aside, B pre-fetched and used", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, sha, asideIn, nodeApi, halting } = await setup(onTestFinished);
    const node = await nodeApi();
    node.plan = { name: "v2", height: 10, info: infoFor("v2a") };
    const v = h.start(["start"], { VISOR_RPC_ADDRESS: node.url, ...halting(infoFor("v2b")) });
    await v.waitFor(/pre-fetched and verified .*plan=v2/);
    const mark = v.lines.length;
    node.plan = { name: "v2", height: 10, info: infoFor("v2b") };
    await v.waitFor(/the scheduled plan now names another binary: setting the pre-fetched one aside/);
    await v.waitFor(/pre-fetched and verified .*plan=v2/, 20_000, mark);
    expect(sha256File(cosmovisor("prefetch", "v2", "artifact"))).toBe(sha("v2b"));

    writeFileSync(join(h.root, "gate"), "");
    await v.waitFor(/v2b running/);
    expect(v.output).toMatch(/installed the pre-fetched binary .*plan=v2/);
    // B was downloaded once, ahead of the halt; A is kept aside.
    expect(releases.requests.get("fake-v2b")).toBe(1);
    const aside = asideIn(cosmovisor("prefetch"));
    expect(aside).toHaveLength(1);
    expect(sha256File(cosmovisor("prefetch", aside[0], "artifact"))).toBe(sha("v2a"));
    expect(existsSync(cosmovisor("prefetch", "v2"))).toBe(false);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("a cancelled plan's pre-fetch is removed; a copy set aside stays for the operator", async ({
    onTestFinished,
  }) => {
    const { h, cosmovisor, infoFor, sha, asideIn, nodeApi, prefetching } = await setup(onTestFinished);
    const node = await nodeApi();
    node.plan = { name: "v2", height: 500, info: infoFor("v2a") };
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      ...prefetching,
    });
    await v.waitFor(/pre-fetched and verified .*plan=v2/);
    const mark = v.lines.length;
    node.plan = { name: "v2", height: 500, info: infoFor("v2b") };
    await v.waitFor(/pre-fetched and verified .*plan=v2/, 20_000, mark);
    node.plan = null;
    await v.waitFor(/removed the pre-fetched binary of a plan no longer scheduled .*folder=v2$/);
    expect(existsSync(cosmovisor("prefetch", "v2"))).toBe(false);
    const aside = asideIn(cosmovisor("prefetch"));
    expect(aside).toHaveLength(1);
    expect(sha256File(cosmovisor("prefetch", aside[0], "artifact"))).toBe(sha("v2a"));
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("prepare-upgrade stages A like a pre-fetch: the halt naming B sets it aside, naming A installs it with downloads off", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, sha, asideIn, nodeApi } = await setup(onTestFinished);
    const node = await nodeApi();
    node.plan = { name: "v2", height: 5, info: infoFor("v2a") };
    const prepared = await h.visor(["prepare-upgrade"], { VISOR_RPC_ADDRESS: node.url });
    expect(prepared.exitCode, prepared.all).toBe(0);
    expect(prepared.stdout).toMatch(
      /upgrade v2 at height 5: artifact verified and staged at \S+\/prefetch\/v2\/artifact; installed at the halt if upgrade-info.json names it/,
    );
    // Staged, never installed: a plan learned over the network does not decide which binary runs.
    expect(sha256File(cosmovisor("prefetch", "v2", "artifact"))).toBe(sha("v2a"));
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);

    const env = { UNSAFE_SKIP_BACKUP: "true", FAKE_HALTS: "v1:5:v2" };
    const v = h.start(["start"], {
      ...env,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      FAKE_INFO: infoFor("v2b"),
    });
    await v.waitFor(/v2b running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const aside = asideIn(cosmovisor("prefetch"));
    expect(aside).toHaveLength(1);
    expect(sha256File(cosmovisor("prefetch", aside[0], "artifact"))).toBe(sha("v2a"));

    // cosmovisor's use of prepare-upgrade: fetch ahead, halt with downloads off. The staged copy serves.
    node.plan = { name: "v3", height: 12, info: infoFor("v2a") };
    expect((await h.visor(["prepare-upgrade"], { VISOR_RPC_ADDRESS: node.url })).exitCode).toBe(0);
    const w = h.start(["start"], {
      ...env,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "false",
      FAKE_HALTS: "v2b:12:v3",
      FAKE_INFO: infoFor("v2a"),
    });
    await w.waitFor(/v2a running/);
    w.proc.kill("SIGTERM");
    expect(await w.exit()).toBe(0);
    expect(w.output).toMatch(/installed the pre-fetched binary .*plan=v3/);
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v3");
    expect(releases.requests.get("fake-v2a")).toBe(2);
  });

  it("an operator's binary is used as is, whatever Plan.info names", async ({ onTestFinished }) => {
    const { h, files, releases, infoFor } = await setup(onTestFinished);
    // A binary the operator put in place (no record of a source) is used whatever Plan.info names, as
    // cosmovisor does: here Plan.info names B, yet the operator's A runs.
    const added = await h.visor(["add-upgrade", "v2", join(files, "fake-v2a")]);
    expect(added.exitCode, added.all).toBe(0);
    const w = h.start(["start"], {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_INFO: infoFor("v2b"),
      FAKE_HALTS: "v1:5:v2",
    });
    await w.waitFor(/v2a running/);
    w.proc.kill("SIGTERM");
    expect(await w.exit()).toBe(0);
    expect(releases.requests.get("fake-v2b")).toBeUndefined();
  });

  it("a recorded binary replaced by hand (add-upgrade cut short before it dropped the record) is the operator's", async ({
    onTestFinished,
  }) => {
    const { h, files, releases, cosmovisor, infoFor, sha, asideIn } = await setup(onTestFinished);
    // What visor leaves when killed inside add-upgrade, between putting the operator's binary in place and
    // removing the record of the binary visor had fetched there (artifact "evil" here): record and binary
    // disagree.
    const dir = cosmovisor("upgrades", "v2");
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(join(files, "fake-v2b"), join(dir, "bin", "fake"));
    const fetched = JSON.parse(infoFor("evil")).binaries.any;
    writeSource(dir, {
      ...sourceOf(
        { name: "v2", height: 5, info: infoFor("evil") },
        parseChecksummedUrl(fetched, false),
        sha("evil"),
      ),
      binary_sha256: sha("evil"),
    });
    const v = h.start(["start"], {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_INFO: infoFor("v2a"),
      FAKE_HALTS: "v1:5:v2",
    });
    await v.waitFor(/v2b running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(asideIn(cosmovisor("upgrades"))).toEqual([]);
    expect(releases.requests.get("fake-v2a")).toBeUndefined();
  });

  /** `current` -> upgrades/v2 holding A, fetched and recorded by visor at the halt (marker: v2 at height 5). */
  it("prepare-upgrade never replaces the binary current runs, whatever plan an impostor names", async ({
    onTestFinished,
  }) => {
    const { h, cosmovisor, infoFor, sha, asideIn, nodeApi, upgradedToA } = await setup(onTestFinished);
    await upgradedToA();
    // A server that knows the node's public ids answers the plan current runs, with its own binary.
    const impostor = await nodeApi();
    impostor.plan = { name: "v2", height: 5, info: infoFor("evil") };
    const prepared = await h.visor(["prepare-upgrade"], { VISOR_RPC_ADDRESS: impostor.url });
    expect(prepared.exitCode, prepared.all).toBe(0);
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");
    expect(sha256File(cosmovisor("upgrades", "v2", "bin", "fake"))).toBe(sha("v2a"));
    expect(asideIn(cosmovisor("upgrades"))).toEqual([]);
    // At most staged, where only a halt naming it would install it.
    expect(sha256File(cosmovisor("prefetch", "v2", "artifact"))).toBe(sha("evil"));
    const v = h.start(["start"]);
    await v.waitFor(/v2a running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("an upgrade-info.json naming the running plan with another binary does not replace it: visor stops and says why", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, sha, asideIn, upgradedToA } = await setup(onTestFinished);
    await upgradedToA();
    writeFileSync(
      join(h.home, "data", "upgrade-info.json"),
      JSON.stringify({ name: "v2", height: 20, info: infoFor("v2b") }),
    );
    const v = h.start(["start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", UNSAFE_SKIP_BACKUP: "true" });
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /Error: refusing to set aside \S+\/upgrades\/v2: current points at it, and the node would run whatever took its place \(it came from http:\/\/127\.0\.0\.1:\d+\/fake-v2a, upgrade-info.json names http:\/\/127\.0\.0\.1:\d+\/fake-v2b;.*\); to replace that binary on purpose: visor add-upgrade v2 <binary> --force/,
    );
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");
    expect(sha256File(cosmovisor("upgrades", "v2", "bin", "fake"))).toBe(sha("v2a"));
    expect(asideIn(cosmovisor("upgrades"))).toEqual([]);
    expect(releases.requests.get("fake-v2b")).toBeUndefined();
    expect(v.output).not.toMatch(/starting daemon/);
  });

  it("a current link pointing at a folder that is gone stops visor, naming it; it is never re-pointed at genesis", async ({
    onTestFinished,
  }) => {
    const { h, cosmovisor, upgradedToA } = await setup(onTestFinished);
    await upgradedToA();
    // What an earlier visor left when killed after setting the running folder aside.
    renameSync(cosmovisor("upgrades", "v2"), cosmovisor("upgrades", "v2.replaced-2025-01-01T00-00-00-000Z"));
    const message =
      /Error: current points at upgrades\/v2 \(\S+\/upgrades\/v2\), which does not exist: put that binary back/;
    const v = h.start(["start"]);
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(message);
    expect(v.output).not.toMatch(/starting daemon|v1 running/);
    const init = await h.visor(["init", fakeBinary(h.root, "v1")]);
    expect(init.exitCode).toBe(1);
    expect(init.all).toMatch(message);
    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");

    // The operator puts the folder back: visor runs it again.
    renameSync(cosmovisor("upgrades", "v2.replaced-2025-01-01T00-00-00-000Z"), cosmovisor("upgrades", "v2"));
    const w = h.start(["start"]);
    await w.waitFor(/v2a running/);
    w.proc.kill("SIGTERM");
    expect(await w.exit()).toBe(0);
  });

  it.for([
    ["with a checksum in Plan.info", true],
    ["without one (the digest recorded at the pre-fetch)", false],
  ])(
    "a pre-fetched artifact altered before the halt is never run: the right one is downloaded (%s)",
    async ([, checksum], { onTestFinished }) => {
      const { h, releases, cosmovisor, infoFor, sha, asideIn, nodeApi, halting } =
        await setup(onTestFinished);
      const info = checksum
        ? infoFor("v2a")
        : JSON.stringify({ binaries: { any: releases.fileUrl("fake-v2a") } });
      const node = await nodeApi();
      node.plan = { name: "v2", height: 10, info };
      const v = h.start(["start"], { VISOR_RPC_ADDRESS: node.url, ...halting(info) });
      await v.waitFor(/pre-fetched and verified .*plan=v2/);
      // Same size, other bytes: a script that leaves a mark if it ever runs.
      const staged = cosmovisor("prefetch", "v2", "artifact");
      const size = statSync(staged).size;
      const head = `#!/bin/sh\ntouch "${join(h.root, "tampered-ran")}"\n#`;
      writeFileSync(staged, `${head}${"#".repeat(size - head.length - 1)}\n`);
      expect(statSync(staged).size).toBe(size);

      writeFileSync(join(h.root, "gate"), "");
      await v.waitFor(/v2a running/);
      v.proc.kill("SIGTERM");
      expect(await v.exit()).toBe(0);
      expect(v.output).toMatch(
        /not using a binary fetched earlier: it is not what upgrade-info.json names .*why="checksum mismatch for the pre-fetched/,
      );
      expect(existsSync(join(h.root, "tampered-ran"))).toBe(false);
      expect(sha256File(cosmovisor("upgrades", "v2", "bin", "fake"))).toBe(sha("v2a"));
      expect(releases.requests.get("fake-v2a")).toBe(2);
      const aside = asideIn(cosmovisor("prefetch"));
      expect(aside).toHaveLength(1);
      expect(readFileSync(cosmovisor("prefetch", aside[0], "artifact"), "utf8")).toMatch(/tampered-ran/);
    },
  );

  it.for([
    ["as the pre-fetch left it: the halt takes it, files and all", false],
    ["altered before the halt: it is never run, the verified artifact is unpacked again", true],
  ])("what the pre-fetch unpacked, %s", async ([, alter], { onTestFinished }) => {
    const { h, releases, cosmovisor, infoFor, sha, nodeApi, halting } = await setup(onTestFinished);
    const info = infoFor("v2a");
    const node = await nodeApi();
    node.plan = { name: "v2", height: 10, info };
    const v = h.start(["start"], { VISOR_RPC_ADDRESS: node.url, ...halting(info) });
    await v.waitFor(/pre-fetched and verified .*plan=v2/);
    const unpacked = cosmovisor("prefetch", "v2", "unpacked", "bin", "fake");
    expect(sha256File(unpacked)).toBe(sha("v2a"));
    const inode = statSync(unpacked).ino;
    if (alter) {
      const size = statSync(unpacked).size;
      const head = `#!/bin/sh\ntouch "${join(h.root, "tampered-ran")}"\n#`;
      writeFileSync(unpacked, `${head}${"#".repeat(size - head.length - 1)}\n`);
    }

    writeFileSync(join(h.root, "gate"), "");
    await v.waitFor(/v2a running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const installed = cosmovisor("upgrades", "v2", "bin", "fake");
    expect(sha256File(installed)).toBe(sha("v2a"));
    expect(existsSync(join(h.root, "tampered-ran"))).toBe(false);
    expect(releases.requests.get("fake-v2a")).toBe(1);
    expect(existsSync(cosmovisor("prefetch", "v2"))).toBe(false);
    if (alter) {
      expect(v.output).toMatch(
        /not using what the pre-fetch unpacked: unpacking the artifact again .*why="bin\/fake is not what was unpacked/,
      );
      expect(statSync(installed).ino).not.toBe(inode);
    } else {
      expect(v.output).not.toMatch(/not using what the pre-fetch unpacked/);
      // The very file the pre-fetch wrote, moved into place rather than unpacked again.
      expect(statSync(installed).ino).toBe(inode);
    }
  });

  it("never asks a server on the REST port while [api] enable = false, though it claims to be the node", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, nodeApi, prefetching } = await setup(onTestFinished);
    const node = await nodeApi();
    // Another local user's server on the port app.toml names for the (disabled) REST gateway. It knows the
    // node's id and chain id (they are public) and offers a plan whose binary is its own script.
    const attacker = await nodeApi();
    attacker.plan = { name: "v2", height: 5, info: infoFor("evil") };
    attacker.height = () => 1_000_000;
    writeFileSync(
      join(h.home, "config", "app.toml"),
      `[api]\nenable = false\naddress = "tcp://127.0.0.1:${attacker.port}"\n\n[grpc]\nenable = false\naddress = "127.0.0.1:1"\n`,
    );
    writeFileSync(join(h.home, "config", "config.toml"), `[rpc]\nladdr = "tcp://127.0.0.1:${node.port}"\n`);
    const fromHome = { DAEMON_GRPC_ADDRESS: "", VISOR_REST_ADDRESS: "", VISOR_RPC_ADDRESS: "" };
    // Unset here and in cosmovisor/config.toml (init wrote the test's port-1 addresses there): from the home.
    rmSync(cosmovisor("config.toml"));
    const config = await h.visor(["config"], fromHome);
    expect(config.stdout).toMatch(/^ {2}VISOR_REST_ADDRESS: $/m);
    expect(config.stdout).toMatch(new RegExp(`^ {2}VISOR_RPC_ADDRESS: http://127.0.0.1:${node.port}$`, "m"));
    // A batch upgrade, so heights are asked for too.
    expect(
      (await h.visor(["add-upgrade", "v9", fakeBinary(h.root, "v9"), "--upgrade-height", "500"])).exitCode,
    ).toBe(0);

    const v = h.start(["start"], {
      ...fromHome,
      ...prefetching,
    });
    await v.waitFor(/v1 height 30/);
    // The node's own server was asked, for plans and heights, over and over; the attacker's never.
    expect(node.requests).toBeGreaterThan(10);
    expect(attacker.requests).toBe(0);
    expect(releases.requests.get("fake-evil")).toBeUndefined();
    expect(existsSync(cosmovisor("prefetch", "v2"))).toBe(false);
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("does not trust a server on an enabled port that answers another chain id or node id, until it is the node", async ({
    onTestFinished,
  }) => {
    const { h, releases, cosmovisor, infoFor, nodeApi, prefetching } = await setup(onTestFinished);
    const wrongChain = await nodeApi({ ...h.identity, chainId: "other-chain-1" });
    const wrongNode = await nodeApi({ ...h.identity, nodeId: "ab".repeat(20) });
    for (const s of [wrongChain, wrongNode]) {
      s.plan = { name: "v2", height: 5, info: infoFor("evil") };
      s.height = () => 1_000_000;
    }
    expect(
      (await h.visor(["add-upgrade", "v2", fakeBinary(h.root, "v2"), "--upgrade-height", "8"])).exitCode,
    ).toBe(0);
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: wrongChain.url,
      VISOR_REST_ADDRESS: wrongNode.url,
      ...prefetching,
      // The home's own store says the batch entry is due: only a trusted node's height may start the check.
      FAKE_BLOCKSTORE: "proto",
    });
    await v.waitFor(/v1 height 30/);
    const warnings = v.lines.filter((l) => l.includes("not trusting the server on the node's port"));
    expect(warnings).toHaveLength(2);
    expect(warnings.find((l) => l.includes(wrongChain.url))).toMatch(
      /answers="chain id \\"other-chain-1\\" \(the home's genesis: \\"visor-test-1\\"\)"/,
    );
    expect(warnings.find((l) => l.includes(wrongNode.url))).toMatch(/answers="node id \\"(ab){20}\\"/);
    expect(releases.requests.get("fake-evil")).toBeUndefined();
    expect(existsSync(cosmovisor("prefetch"))).toBe(false);
    expect(existsSync(join(h.home, "data", "upgrade-info.json"))).toBe(false);
    expect(v.output).not.toMatch(/batch upgrade due|upgrade detected/);

    // The check is made again on every question: once the server on the port is the node, it is believed,
    // and the batch upgrade (whose height the home has long passed) is applied.
    wrongChain.identity = h.identity;
    await v.waitFor(/the node's own server answers again/);
    await v.waitFor(/batch upgrade due .*plan=v2/);
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("a verified node's fake height does not apply a batch upgrade early: the home's own height decides", async ({
    onTestFinished,
  }) => {
    const { h, nodeApi } = await setup(onTestFinished);
    const node = await nodeApi();
    node.height = () => 1_000_000;
    expect(
      (await h.visor(["add-upgrade", "v2", fakeBinary(h.root, "v2"), "--upgrade-height", "25"])).exitCode,
    ).toBe(0);
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_BLOCK_MS: "100",
      FAKE_BLOCKSTORE: "proto",
    });
    await v.waitFor(/batch upgrade waits: the home's own store is behind the height its node's API reports/);
    await v.waitFor(/v2 running/, 60_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const heightAtV2 = Number(v.output.match(/v2 running from height (\d+)/)![1]);
    expect(heightAtV2).toBeGreaterThanOrEqual(24);
    expect(v.output).toMatch(/batch upgrade due .*node_height=1000000 home_height=(\d+)/);
    const home = Number(v.output.match(/batch upgrade due .*home_height=(\d+)/)![1]);
    expect(home).toBeGreaterThanOrEqual(24);
  });

  it("a plan learned over the network never switches binaries: only upgrade-info.json does", async ({
    onTestFinished,
  }) => {
    const { h, cosmovisor, infoFor, nodeApi, prefetching } = await setup(onTestFinished);
    const node = await nodeApi();
    node.plan = { name: "v2", height: 5, info: infoFor("v2a") };
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      ...prefetching,
    });
    await v.waitFor(/pre-fetched and verified .*plan=v2/);
    // Well past the plan's height: the node did not halt (it has no such plan), so nothing changes.
    await v.waitFor(/v1 height 20/);
    const status = JSON.parse((await h.visor(["status", "-o", "json"])).stdout);
    expect(status.prefetch).toMatchObject({ plan: "v2", state: "ready" });
    expect(status.current).toMatch(/genesis$/);
    expect(readlinkSync(cosmovisor("current"))).toBe("genesis");
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);
    expect(existsSync(join(h.home, "data", "upgrade-info.json"))).toBe(false);
    expect(v.output).not.toMatch(/upgrade detected|starting daemon .*upgrades/);
    expect(v.lines.filter((l) => /starting daemon/.test(l))).toHaveLength(1);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });
});
