import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { restRoutes } from "../../../node/src/server/rest/rest-routes.js";
import { renderRestRoutesDoc, servicesIn } from "../../../node/src/server/rest/rest-routes-doc.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

const ROOT = join(import.meta.dirname, "../../..");
const GEN = join(ROOT, "proto/gen");
const DOC = join(ROOT, "docs/REST-ROUTES.md");

async function generatedServices(): Promise<DescService[]> {
  const out: DescService[] = [];
  for (const rel of readdirSync(GEN, { recursive: true }).map(String)) {
    if (rel.endsWith("_pb.ts")) out.push(...servicesIn(await import(join(GEN, rel))));
  }
  return out;
}

const routeKeys = (services: readonly DescService[]) =>
  restRoutes(services)
    .map((r) => `${r.method} ${r.path.template}`)
    .sort();

describe("docs/REST-ROUTES.md", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  beforeAll(async () => {
    home = makeTestHome();
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
  });
  afterAll(async () => {
    await node?.close();
    home?.cleanup();
  });

  it("is what the descriptors give (run `npm run docs:routes` when this fails)", async () => {
    expect(readFileSync(DOC, "utf8")).toBe(renderRestRoutesDoc(await generatedServices()));
  });

  it("lists exactly the routes a node serves", async () => {
    const served = routeKeys(node.app.registrar.queryServices);
    expect(served.length).toBeGreaterThan(40);
    expect(routeKeys(await generatedServices())).toEqual(served);
    const doc = readFileSync(DOC, "utf8");
    for (const key of served) {
      const [method, path] = key.split(" ");
      expect(doc).toContain(`| ${method} | \`${path}\` |`);
    }
  });

  it("is checked by the compiled script against the compiled descriptors (npm run docs:routes)", async () => {
    const r = await execa("node", [join(ROOT, "dist/scripts/rest-routes.js"), "--check"], { reject: false });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });
});
