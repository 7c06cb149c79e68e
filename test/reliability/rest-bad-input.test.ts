import type { Agent } from "node:http";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { type RestRoute, restRoutes } from "../../node/src/server/rest/rest-routes.js";
import { startRestServer } from "../../node/src/server/rest/rest-server.js";
import { anyOf, TxSigner } from "../node/helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { exchange, HEADER_CHAR_CODES, type HttpAnswer, keepAliveAgent } from "./http-exchange.js";
import { jsFault } from "./js-fault-text.js";
import { soakSize } from "./soak-size.js";

const alice = testAccount("alice");
const bob = testAccount("bob");
const RUNS = soakSize("rest_fuzz", 150);

/** Text that may go into a URL as is (node:http refuses spaces, controls and non-Latin-1). */
const rawUrlText = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** One path segment or query value: plausible values, encoded junk, broken escapes, very long text. */
const urlValue = fc.oneof(
  fc.constantFrom(
    alice.address,
    bob.address,
    "stake",
    "0",
    "1",
    "-1",
    "99999999999999999999",
    "0x10",
    "1e3",
    "%",
    "%zz",
    "%E0%A4",
    "%00",
    "%2F..%2F",
    "..",
    ".",
    "true",
    "null",
    "AB".repeat(32),
    "sdk1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq",
    "BOND_STATUS_BONDED",
    "PROPOSAL_STATUS_PASSED",
  ),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  rawUrlText.map((s) => s.replace(/[#?/]/g, "")),
  fc.nat({ max: 3000 }).map((n) => "x".repeat(n)),
);

const queryKey = fc.oneof(
  fc.constantFrom(
    "pagination.key",
    "pagination.offset",
    "pagination.limit",
    "pagination.count_total",
    "pagination.reverse",
    "pagination",
    "denom",
    "address",
    "height",
    "status",
    "proposal_status",
    "events",
    "query",
    "order_by",
    "page",
    "limit",
    "resolve_denom",
    "voter",
    "depositor",
  ),
  rawUrlText.map((s) => s.replace(/[#?&=]/g, "")),
);

const queryString = fc
  .array(fc.tuple(queryKey, urlValue), { maxLength: 5 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : ""));

/** A height header value: numbers in and out of range, signs, padding, junk. */
const heightValue = fc.oneof(
  fc.integer({ min: -5, max: 50 }).map(String),
  fc.constantFrom(
    "",
    " ",
    "0",
    "+1",
    "1.0",
    "1e2",
    "0x1",
    "9007199254740993",
    "-0",
    " 2 ",
    "\u00a0",
    "\u00b2",
  ),
  fc.string({
    unit: fc.constantFrom(...HEADER_CHAR_CODES).map((c) => String.fromCharCode(c)),
    maxLength: 20,
  }),
);

const heightHeaders = fc.oneof(
  fc.constant({}),
  heightValue.map((v) => ({ "x-cosmos-block-height": v })),
  heightValue.map((v) => ({ "x-sdk-block-height": v })),
  fc
    .tuple(heightValue, heightValue)
    .map(([a, b]) => ({ "x-sdk-block-height": a, "x-cosmos-block-height": b })),
);

/** A URL for a real route template, with each variable filled from `urlValue`, in either namespace. */
function routePath(routes: readonly RestRoute[]) {
  return fc
    .tuple(
      fc.constantFrom(...routes),
      fc.boolean(),
      fc.array(urlValue, { minLength: 4, maxLength: 4 }),
      queryString,
    )
    .map(([route, cosmos, values, query]) => {
      let i = 0;
      let path = route.path.template.replace(/\{[^}]*\}/g, () => values[i++ % values.length] || "x");
      if (cosmos) path = path.replace(/^\/sdk\//, "/cosmos/");
      return { route, path: path + query };
    });
}

/** A JSON body for a POST route: junk of every JSON type, and near-valid tx requests. */
const postBody = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 60 }),
  fc
    .record(
      {
        tx_bytes: fc.oneof(fc.base64String({ maxLength: 200 }), fc.string(), fc.integer(), fc.constant(null)),
        mode: fc.oneof(
          fc.constantFrom(
            "BROADCAST_MODE_SYNC",
            "BROADCAST_MODE_ASYNC",
            "BROADCAST_MODE_BLOCK",
            "BROADCAST_MODE_UNSPECIFIED",
            "nope",
          ),
          fc.integer({ min: -2, max: 9 }),
        ),
        tx: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
);

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked field by field
type Json = any;

/**
 * The contract for a client mistake: an answer (never a dropped connection), never a 5xx except grpc-gateway's
 * 501 for an unimplemented path or RPC, and every error as `{"code", "message", "details"}`.
 */
function expectCleanAnswer(a: HttpAnswer, method: string, what: string): void {
  if (method === "HEAD") {
    expect(a.status, what).toBeLessThan(a.status === 501 ? 502 : 500);
    return;
  }
  if (a.status === 500 && /^POST \/(sdk|cosmos)\/tx\/v1beta1\/simulate\b/.test(what)) {
    // A failed simulation, answered as Cosmos SDK 0.50's tx service answers it: gRPC Unknown, the failure's text,
    // then the gas figures.
    const body = JSON.parse(a.text) as Json;
    expect(body.code, `${what}: ${a.text}`).toBe(2);
    expect(body.message, what).toMatch(/ With gas wanted: '\d+' and gas used: '\d+' $/);
    expect(body.details, what).toEqual([]);
    expect(jsFault(body.message), what).toBeUndefined();
    return;
  }
  if (a.status >= 500) {
    // grpc-gateway's answer for a path no route serves, or an RPC the node leaves unimplemented (code 12).
    expect(a.status, `${what}: ${a.text}`).toBe(501);
    expect(JSON.parse(a.text), what).toMatchObject({ code: 12, details: [] });
    return;
  }
  if (a.status < 400) return;
  expect(a.headers["content-type"], what).toBe("application/json");
  const body = JSON.parse(a.text) as Json;
  expect(Number.isInteger(body.code) && body.code > 0, `${what}: ${a.text}`).toBe(true);
  expect(typeof body.message === "string" && body.message.length > 0, `${what}: ${a.text}`).toBe(true);
  expect(body.details, what).toEqual([]);
  expect(jsFault(body.message), what).toBeUndefined();
}

describe("REST gateway under random bad input", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let agent: Agent;
  let routes: RestRoute[];
  let before: { height: number; appHash: string; balances: string };

  const snapshot = async () => ({
    height: node.store.latestHeight,
    appHash: Buffer.from(node.store.latestAppHash).toString("hex"),
    balances: (
      await exchange(api.address, { method: "GET", path: `/sdk/bank/v1beta1/balances/${bob.address}` })
    ).text,
  });
  const stillServing = async () => {
    const a = await exchange(api.address, { method: "GET", path: "/sdk/bank/v1beta1/params", agent });
    expect(a.status).toBe(200);
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
        c.api.rpcMaxBodyBytes = 8192;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger })) as NodeServer;
    agent = keepAliveAgent();
    routes = restRoutes(node.app.registrar.queryServices);
    await node.producer.produce();
    const signer = new TxSigner(alice, 0n, home.chainId);
    const tx = await signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "7" }],
      }),
    ]);
    expect((await node.mempool.add(tx)).code).toBe(0);
    await node.producer.produce();
    await node.producer.produce();
    before = await snapshot();
    expect(before.balances).toContain('"7"');
  });
  afterAll(async () => {
    agent?.destroy();
    await api?.close();
    await node?.close();
    home?.cleanup();
  });

  it("answers random values in every route's path and query with a clean status and error body", async () => {
    await fuzzAssert(
      {
        suite: "REST bad input",
        property: "answers random values in every route's path and query with a clean status and error body",
        runs: RUNS,
      },
      fc.asyncProperty(routePath(routes), heightHeaders, async ({ route, path }, headers) => {
        const a = await exchange(api.address, { method: route.method, path, headers, agent });
        expectCleanAnswer(a, route.method, `${route.method} ${path} ${JSON.stringify(headers)}`);
      }),
    );
    await stillServing();
  });

  it("answers random paths, methods and junk URLs cleanly", async () => {
    const path = fc.oneof(
      fc.webPath().map((p) => (p.startsWith("/") ? p : `/${p}`)),
      fc.array(urlValue, { maxLength: 6 }).map((parts) => `/${parts.join("/")}`),
      fc
        .array(fc.constantFrom("sdk", "cosmos", "bank", "v1beta1", "balances", "", "..", "swagger"), {
          maxLength: 6,
        })
        .map((parts) => `/${parts.join("/")}`),
      fc.constantFrom("*", "//", "//sdk/bank/v1beta1/params", "http://x/sdk", "http://[", "/?", "/#"),
    );
    const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE");
    await fuzzAssert(
      {
        suite: "REST bad input",
        property: "answers random paths, methods and junk URLs cleanly",
        runs: RUNS,
      },
      fc.asyncProperty(method, path, queryString, heightHeaders, async (m, p, q, headers) => {
        const a = await exchange(api.address, { method: m, path: p + q, headers, agent });
        expectCleanAnswer(a, m, `${m} ${p}${q}`);
      }),
    );
    await stillServing();
  });

  it("answers random bodies on the POST routes (broadcast, simulate) with a clean error", async () => {
    const posts = routes.filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    await fuzzAssert(
      {
        suite: "REST bad input",
        property: "answers random bodies on the POST routes (broadcast, simulate) with a clean error",
        runs: RUNS,
      },
      fc.asyncProperty(
        fc.constantFrom(...posts),
        fc.boolean(),
        postBody,
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", ""),
        async (route, cosmos, body, type) => {
          const path = cosmos ? route.path.template.replace(/^\/sdk\//, "/cosmos/") : route.path.template;
          const headers: Record<string, string> = type ? { "content-type": type } : {};
          const a = await exchange(api.address, { method: "POST", path, headers, body, agent });
          expectCleanAnswer(a, "POST", `POST ${path} ${body}`);
          // Broadcast answers 200 with the CheckTx failure in tx_response (async mode does not wait for
          // CheckTx, as in Cosmos); nothing random is a valid tx.
          const mode = /"mode":(3|"BROADCAST_MODE_ASYNC")/.exec(body)?.[1];
          if (a.status === 200 && mode === undefined)
            expect((JSON.parse(a.text) as Json).tx_response?.code, `${path} ${body}`).toBeGreaterThan(0);
        },
      ),
    );
    await stillServing();
  });

  it("leaves state alone: same height, app hash, balances and an empty mempool", async () => {
    expect(await snapshot()).toEqual(before);
    expect(node.mempool.size).toBe(0);
  });
});
