import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.log(`skipping the Swagger UI browser test: ${CHROMIUM} is missing (.ci/run installs it)`);

describe.skipIf(!hasChromium)("Swagger UI in headless chromium", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    home = makeTestHome({
      tuneApp: (c) => {
        c.api.enable = true;
        c.api.swagger = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
    profile = mkdtempSync(join(tmpdir(), "chaind-chromium-"));
    // A fresh profile each run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await node?.close();
    home?.cleanup();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it("expands CurrentPlan, runs Try it out / Execute and shows the live JSON answer, loading nothing remote", async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const origin = new URL(api.address).origin;
    // Only the node itself may be reached; anything else is recorded and refused.
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    await page.goto(`${api.address}/swagger/`);
    const op = page.locator(".opblock", { hasText: "/sdk/upgrade/v1beta1/current_plan" });
    await op.locator(".opblock-summary").first().click();
    await op.locator("button.try-out__btn").click();
    await op.locator("button.execute").click();
    const body = op.locator(".live-responses-table .response-col_description pre");
    await expect
      .poll(async () => (await body.first().textContent()) ?? "", { timeout: 15_000 })
      .toContain('"plan"');
    const text = (await body.first().textContent()) ?? "";
    expect(JSON.parse(text)).toEqual({ plan: null });
    await expect
      .poll(async () =>
        (
          await op.locator(".live-responses-table tr.response .response-col_status").first().textContent()
        )?.trim(),
      )
      .toBe("200");
    // The generated document loads without schema or resolver errors.
    expect(await page.locator(".errors-wrapper").count()).toBe(0);
    expect(await page.locator(".opblock").count()).toBeGreaterThan(40);
    expect(foreign).toEqual([]);
  });
});
