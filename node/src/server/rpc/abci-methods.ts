import type { ChainNode } from "../../chain/chain-node.js";
import { toChainError } from "../../errors/chain-error.js";
import { grpcCodeName } from "../../errors/grpc-code.js";
import { StoreHeightError } from "../../store/store-errors.js";
import { base64 } from "./comet-json.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { bytesParam, optInt, str } from "./rpc-params.js";

/** `abci_info` and `abci_query`: the app's own answers, queries through its router at a height. */
export function abciMethods(node: ChainNode): Record<string, RpcMethod> {
  const { app, store } = node;
  return {
    abci_info: {
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
    abci_query: {
      params: ["path", "data", "height", "prove"],
      run: async (p) => {
        const path = str(p, "path");
        const data = p.data === undefined || p.data === "" ? new Uint8Array() : bytesParam(p, "data", "hex");
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
  };
}
