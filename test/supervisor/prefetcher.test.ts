import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { ReleaseServer } from "@chaind/harness/release-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadVisorConfig } from "../../supervisor/src/config/visor-config.js";
import { NodeApi } from "../../supervisor/src/daemon/node-api.js";
import { homeIdentity } from "../../supervisor/src/daemon/node-identity.js";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { Prefetcher } from "../../supervisor/src/upgrade/prefetcher.js";
import { StatusFile } from "../../supervisor/src/upgrade/visor-status.js";
import { FakeNodeApi } from "./fake-node-api.js";
import { writeNodeIdentity } from "./visor-home.js";

describe("the pre-fetcher: which plans it has handled", () => {
  let root: string;
  let node: FakeNodeApi;
  let server: ReleaseServer;
  let api: NodeApi;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "visor-prefetch-"));
    node = await FakeNodeApi.start({ home: root, identity: writeNodeIdentity(root) });
    mkdirSync(join(root, "served"));
    server = await ReleaseServer.start({ dir: join(root, "served") });
    api = new NodeApi(
      { addresses: { grpc: "", rest: "", rpc: node.url }, identity: homeIdentity(root) },
      { logger: silentLogger },
    );
  });
  afterAll(async () => {
    api.close();
    await node.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('tells plan "a" with info "b|<info>" from plan "a|b" with info "<info>": both are fetched', async () => {
    const binary = "#!/bin/sh\necho v2\n";
    writeFileSync(join(root, "served", "fake-v2"), binary);
    const sha256 = createHash("sha256").update(binary).digest("hex");
    const info = JSON.stringify({
      binaries: { any: `${server.fileUrl("fake-v2")}?checksum=sha256:${sha256}` },
    });
    const config = loadVisorConfig({
      DAEMON_HOME: root,
      DAEMON_NAME: "fake",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    });
    const layout = new VisorLayout(config);
    mkdirSync(layout.root);
    const status = new StatusFile(layout.statusFile);
    const prefetcher = new Prefetcher({ config, layout, api, status, metrics: null, logger: silentLogger });
    const prefetch = () => JSON.parse(readFileSync(layout.statusFile, "utf8")).prefetch;

    // First a plan whose info names nothing usable: tried once, failed.
    node.plan = { name: "a", height: 10, info: `b|${info}` };
    await prefetcher.tick();
    expect(prefetch()).toMatchObject({ plan: "a", state: "failed" });
    // Then another plan: joined by "|", the two would be one key, and this one taken as handled already.
    node.plan = { name: "a|b", height: 10, info };
    await prefetcher.tick();
    expect(prefetch()).toEqual({ plan: "a|b", state: "ready" });
    expect(existsSync(layout.prefetchDirOf("a|b"))).toBe(true);
  });
});
