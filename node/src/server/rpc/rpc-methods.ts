import { sha256 } from "@noble/hashes/sha2.js";
import type { TxResult } from "../../app/tx-result.js";
import type { ChainNode } from "../../chain/chain-node.js";
import type { CommittedBlock } from "../../consensus/block-producer.js";
import { COMET_CHANNELS, COMET_PROTOCOL, COMET_VERSION } from "../../consensus/comet-version.js";
import { rfc3339 } from "../../consensus/rfc3339.js";
import { parseTxQuery, searchTxs } from "../../consensus/tx-search.js";
import { toChainError } from "../../errors/chain-error.js";
import { grpcCodeName } from "../../errors/grpc-code.js";
import { StoreHeightError } from "../../store/store-errors.js";
import {
  base64,
  blockIdJson,
  blockJson,
  blockMetaJson,
  eventsJson,
  hexUpper,
  txResultJson,
} from "./comet-json.js";
import { GenesisAppState } from "./genesis-app-state.js";
import { GenesisChunks } from "./genesis-chunks.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { JsonText, type RpcMethod, type RpcParams } from "./json-rpc-server.js";

function optInt(p: RpcParams, name: string): number | undefined {
  const v = p[name];
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw JsonRpcError.invalidParams(`${name} must be an integer, got ${JSON.stringify(v)}`);
  return n;
}

function str(p: RpcParams, name: string, required = true): string {
  const v = p[name];
  if (v === undefined || v === null) {
    if (required) throw JsonRpcError.invalidParams(`missing parameter ${name}`);
    return "";
  }
  if (typeof v !== "string") throw JsonRpcError.invalidParams(`${name} must be a string`);
  return v;
}

/** Bytes in JSON are base64; the URI form sends `0x`-prefixed hex. */
function bytesParam(p: RpcParams, name: string, encoding: "base64" | "hex"): Uint8Array {
  const v = str(p, name);
  if (v.startsWith("0x")) return hexBytes(v.slice(2), name);
  if (encoding === "hex") return hexBytes(v, name);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v)) throw JsonRpcError.invalidParams(`${name} must be base64`);
  return new Uint8Array(Buffer.from(v, "base64"));
}

function hexBytes(v: string, name: string): Uint8Array {
  if (!/^([0-9A-Fa-f]{2})*$/.test(v)) throw JsonRpcError.invalidParams(`${name} must be hex`);
  return new Uint8Array(Buffer.from(v, "hex"));
}

/** A tx hash: hex (URI form, tools) or base64 (CometBFT's JSON form for bytes); 32 bytes either way. */
function hashParam(p: RpcParams): Uint8Array {
  const v = str(p, "hash");
  const bytes = /^(0x)?[0-9A-Fa-f]{64}$/.test(v)
    ? hexBytes(v.replace(/^0x/, ""), "hash")
    : bytesParam(p, "hash", "base64");
  if (bytes.length !== 32) throw JsonRpcError.invalidParams("hash must be 32 bytes");
  return bytes;
}

/** The height to serve: the latest when absent or 0, else one the block store has. */
function heightParam(node: ChainNode, p: RpcParams): number {
  const latest = node.blocks.height;
  const h = optInt(p, "height") ?? 0;
  if (h < 0) throw JsonRpcError.invalidParams("height must not be negative");
  if (h === 0) return latest;
  if (h > latest)
    throw JsonRpcError.internal(
      `height ${h} must be less than or equal to the current blockchain height ${latest}`,
    );
  return h;
}

function paging(p: RpcParams): { page: number; perPage: number } {
  const perPage = Math.min(Math.max(optInt(p, "per_page") ?? 30, 1), 100);
  const page = optInt(p, "page") ?? 1;
  if (page < 1) throw JsonRpcError.invalidParams("page must be at least 1");
  return { page, perPage };
}

function checkTxJson(r: TxResult, hash: Uint8Array) {
  return { code: r.code, data: base64(r.data), log: r.log, codespace: r.codespace, hash: hexUpper(hash) };
}

/** Every method the node answers, keyed by CometBFT's name. */
export function rpcMethods(node: ChainNode): Map<string, RpcMethod> {
  const { app, blocks, mempool, store, producer, signer, chainId } = node;
  const nodeId = Buffer.from(signer.address).toString("hex");
  const genesisChunks = new GenesisChunks(node.layout.genesisJson);
  const genesisAppState = new GenesisAppState(node.layout.genesisJson);
  const validator = () => ({
    address: hexUpper(signer.address),
    pub_key: { type: "tendermint/PubKeyEd25519", value: base64(signer.pubKey) },
    voting_power: String(node.votingPower()),
    proposer_priority: "0",
  });

  async function txJson(hash: Uint8Array) {
    const loc = await blocks.txLocation(hash);
    if (!loc) throw JsonRpcError.internal(`tx (${hexUpper(hash)}) not found`);
    return txAt(loc.height, loc.index);
  }

  async function txAt(height: number, index: number) {
    const [block, results] = await Promise.all([blocks.block(height), blocks.results(height)]);
    const tx = block?.data?.txs[index];
    const result = results?.txResults[index];
    if (!tx || !result) throw JsonRpcError.internal(`tx ${height}/${index} is missing from the block store`);
    return {
      hash: hexUpper(sha256(tx)),
      height: String(height),
      index,
      tx_result: txResultJson(result),
      tx: base64(tx),
    };
  }

  async function blockAt(height: number) {
    const [block, meta] = await Promise.all([blocks.block(height), blocks.meta(height)]);
    if (!block || !meta) throw JsonRpcError.internal(`block ${height} is not available`);
    return { block_id: blockIdJson(meta.blockId), block: blockJson(block) };
  }

  /** Resolves when a block holding `hash` commits, or rejects after the timeout. */
  function waitForTx(hash: Uint8Array, timeoutMs: number): Promise<{ height: number; result: TxResult }> {
    return new Promise((resolve, reject) => {
      const hex = hexUpper(hash);
      const done = () => {
        clearTimeout(timer);
        offCommit();
        offStop();
      };
      const timer = setTimeout(() => {
        done();
        reject(JsonRpcError.internal(`timed out waiting for tx ${hex} to be included in a block`));
      }, timeoutMs);
      // A waiter never keeps a stopping process alive; its connection is closed with the server.
      timer.unref();
      const offCommit = producer.onCommit((b: CommittedBlock) => {
        const i = (b.block.data?.txs ?? []).findIndex((t) => hexUpper(sha256(t)) === hex);
        if (i < 0) return;
        done();
        resolve({ height: b.height, result: b.txResults[i] });
      });
      // A node stopping (an upgrade halt, a signal) answers at once instead of holding the waiter, and with it
      // the process, until the timeout.
      const offStop = producer.onStop(() => {
        done();
        reject(JsonRpcError.internal(`the node stopped before tx ${hex} was included in a block`));
      });
    });
  }

  const methods: [string, RpcMethod][] = [
    ["health", { params: [], run: async () => ({}) }],
    [
      "status",
      {
        params: [],
        run: async () => {
          const latest = blocks.height;
          const [meta, first] = await Promise.all([
            latest > 0 ? blocks.meta(latest) : undefined,
            latest > 0 ? blocks.meta(1) : undefined,
          ]);
          return {
            node_info: {
              protocol_version: {
                p2p: String(COMET_PROTOCOL.p2p),
                block: String(COMET_PROTOCOL.block),
                app: String(app.info().appVersion),
              },
              id: nodeId,
              listen_addr: node.nodeConfig.rpc.laddr,
              network: chainId,
              version: COMET_VERSION,
              channels: COMET_CHANNELS,
              moniker: node.nodeConfig.moniker,
              other: { tx_index: "on", rpc_address: node.nodeConfig.rpc.laddr },
            },
            sync_info: {
              latest_block_hash: hexUpper(meta?.blockId?.hash),
              latest_app_hash: hexUpper(store.latestAppHash),
              latest_block_height: String(latest),
              latest_block_time: rfc3339(meta?.header?.time),
              earliest_block_hash: hexUpper(first?.blockId?.hash),
              earliest_app_hash: hexUpper(first?.header?.appHash),
              earliest_block_height: String(first ? 1 : 0),
              earliest_block_time: rfc3339(first?.header?.time),
              catching_up: false,
            },
            validator_info: {
              address: hexUpper(signer.address),
              pub_key: validator().pub_key,
              voting_power: String(node.votingPower()),
            },
          };
        },
      },
    ],
    [
      "abci_info",
      {
        params: [],
        run: async () => {
          const info = app.info();
          return {
            response: {
              data: info.appName,
              version: info.version,
              app_version: String(info.appVersion),
              last_block_height: String(info.lastBlockHeight),
              last_block_app_hash: base64(info.lastBlockAppHash),
            },
          };
        },
      },
    ],
    [
      "abci_query",
      {
        params: ["path", "data", "height", "prove"],
        run: async (p) => {
          const path = str(p, "path");
          const data =
            p.data === undefined || p.data === "" ? new Uint8Array() : bytesParam(p, "data", "hex");
          const height = optInt(p, "height") ?? 0;
          try {
            const r = await app.query(path, data, height);
            return {
              response: {
                code: 0,
                log: "",
                info: "",
                index: "0",
                key: null,
                value: base64(r.value),
                proofOps: null,
                height: String(r.height),
                codespace: "",
              },
            };
          } catch (e) {
            const ce = toChainError(e);
            return {
              response: {
                code: ce.abciCode,
                // As a Cosmos node answers routed queries: the gRPC status text, which CosmJS looks for.
                log: `rpc error: code = ${grpcCodeName(ce.grpcCode)} desc = ${ce.message}`,
                info: "",
                index: "0",
                key: null,
                value: null,
                proofOps: null,
                height: String(e instanceof StoreHeightError ? 0 : height || store.latestHeight),
                codespace: ce.codespace,
              },
            };
          }
        },
      },
    ],
    [
      "broadcast_tx_async",
      {
        params: ["tx"],
        run: async (p) => {
          const tx = bytesParam(p, "tx", "base64");
          void mempool.add(tx).then(() => producer.notifyTxs());
          return { code: 0, data: "", log: "", codespace: "", hash: hexUpper(sha256(tx)) };
        },
      },
    ],
    [
      "broadcast_tx_sync",
      {
        params: ["tx"],
        run: async (p) => {
          const tx = bytesParam(p, "tx", "base64");
          const r = await mempool.add(tx);
          if (r.code === 0) producer.notifyTxs();
          return checkTxJson(r, sha256(tx));
        },
      },
    ],
    [
      "broadcast_tx_commit",
      {
        params: ["tx"],
        run: async (p) => {
          const tx = bytesParam(p, "tx", "base64");
          const hash = sha256(tx);
          const included = waitForTx(hash, node.nodeConfig.rpc.timeoutBroadcastTxCommitMs);
          const check = await mempool.add(tx);
          if (check.code !== 0) {
            included.catch(() => {});
            return {
              check_tx: txResultJson(check),
              tx_result: txResultJson(emptyResult()),
              hash: hexUpper(hash),
              height: "0",
            };
          }
          producer.notifyTxs();
          const { height, result } = await included;
          return {
            check_tx: txResultJson(check),
            tx_result: txResultJson(result),
            hash: hexUpper(hash),
            height: String(height),
          };
        },
      },
    ],
    ["tx", { params: ["hash", "prove"], run: async (p) => txJson(hashParam(p)) }],
    [
      "tx_search",
      {
        params: ["query", "prove", "page", "per_page", "order_by"],
        run: async (p) => {
          const order = str(p, "order_by", false) || "asc";
          if (order !== "asc" && order !== "desc")
            throw JsonRpcError.invalidParams(
              `order_by must be "asc" or "desc", got ${JSON.stringify(order)}`,
            );
          let conditions: ReturnType<typeof parseTxQuery>;
          try {
            conditions = parseTxQuery(str(p, "query"));
          } catch (e) {
            throw JsonRpcError.invalidParams((e as Error).message);
          }
          const found = await searchTxs(blocks, conditions, { ...paging(p), order });
          return {
            txs: await Promise.all(found.locations.map((l) => txAt(l.height, l.index))),
            total_count: String(found.total),
          };
        },
      },
    ],
    ["block", { params: ["height"], run: async (p) => blockAt(heightParam(node, p)) }],
    [
      "block_by_hash",
      {
        params: ["hash"],
        run: async (p) => {
          const h = await blocks.heightByHash(hashParam(p));
          if (h === undefined) return { block_id: blockIdJson(undefined), block: null };
          return blockAt(h);
        },
      },
    ],
    [
      "block_results",
      {
        params: ["height"],
        run: async (p) => {
          const height = heightParam(node, p);
          const r = await blocks.results(height);
          if (!r) throw JsonRpcError.internal(`results for height ${height} are not available`);
          return {
            height: String(height),
            txs_results: r.txResults.map(txResultJson),
            finalize_block_events: eventsJson(r.events),
            validator_updates: [],
            consensus_param_updates: null,
            app_hash: base64((await blocks.meta(height + 1))?.header?.appHash ?? store.latestAppHash),
          };
        },
      },
    ],
    [
      "blockchain",
      {
        params: ["minHeight", "maxHeight"],
        run: async (p) => {
          const latest = blocks.height;
          const max = Math.min(optInt(p, "maxHeight") || latest, latest);
          const min = Math.max(optInt(p, "minHeight") || 1, 1, max - 19);
          if (min > max)
            throw JsonRpcError.invalidParams(`min height ${min} can't be greater than max height ${max}`);
          const metas = [];
          for (let h = max; h >= min; h--) {
            const m = await blocks.meta(h);
            if (m) metas.push(blockMetaJson(m));
          }
          return { last_height: String(latest), block_metas: metas };
        },
      },
    ],
    [
      "validators",
      {
        params: ["height", "page", "per_page"],
        run: async (p) => {
          const height = heightParam(node, p);
          const { page } = paging(p);
          return {
            block_height: String(height),
            validators: page === 1 ? [validator()] : [],
            count: page === 1 ? "1" : "0",
            total: "1",
          };
        },
      },
    ],
    [
      "genesis",
      {
        params: [],
        run: async () => {
          // Checked on the file's size, so a huge genesis is never read for an answer that cannot be sent.
          if (genesisChunks.total() > 1)
            throw JsonRpcError.internal(
              "genesis response is large, please use the genesis_chunked API instead",
            );
          const head = JSON.stringify({
            genesis_time: node.genesis.genesis_time,
            chain_id: node.genesis.chain_id,
            initial_height: String(node.genesis.initial_height),
            consensus_params: node.genesis.consensus.params,
            validators: [
              { ...validator(), power: String(node.votingPower()), name: node.nodeConfig.moniker },
            ],
            app_hash: "",
          });
          return new JsonText(
            `{"genesis":${head.slice(0, -1)},"app_state":${await genesisAppState.text()}}}`,
          );
        },
      },
    ],
    [
      "genesis_chunked",
      {
        params: ["chunk"],
        run: async (p) => {
          const chunk = optInt(p, "chunk") ?? 0;
          if (chunk < 0) throw JsonRpcError.invalidParams(`chunk must not be negative, got ${chunk}`);
          return genesisChunks.chunk(chunk);
        },
      },
    ],
    [
      "num_unconfirmed_txs",
      {
        params: [],
        run: async () => ({
          n_txs: String(mempool.size),
          total: String(mempool.size),
          total_bytes: String(mempool.bytes),
          txs: null,
        }),
      },
    ],
  ];
  return new Map(methods);
}

function emptyResult(): TxResult {
  return {
    code: 0,
    codespace: "",
    log: "",
    info: "",
    data: new Uint8Array(),
    gasWanted: 0n,
    gasUsed: 0n,
    events: [],
  };
}
