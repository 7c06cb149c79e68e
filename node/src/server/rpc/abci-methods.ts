import { abciQuery } from "../../abci/abci-query.js";
import type { ChainNode } from "../../chain/chain-node.js";
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
        const a = await abciQuery({ app, store }, { path, data, height: optInt(p, "height") ?? 0 });
        return {
          response: {
            code: a.code,
            log: a.log,
            info: "",
            index: "0",
            key: a.key.length ? base64(a.key) : null,
            value: a.code === 0 ? base64(a.value) : null,
            proofOps: null,
            height: String(a.height),
            codespace: a.codespace,
          },
        };
      },
    },
  };
}
