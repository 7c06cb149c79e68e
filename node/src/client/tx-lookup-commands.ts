import { create } from "@bufbuild/protobuf";
import {
  SearchTxsResultSchema,
  type TxResponse,
  TxResponseSchema,
} from "@chaind/proto/sdk/base/abci/v1beta1/abci_pb";
import { OrderBy, Service } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import type { CommandModule } from "yargs";
import type { TypeRegistry } from "../app/type-registry.js";
import { CliError } from "./cli-error.js";
import { type QueryArgs, queryOptions } from "./query-options.js";
import { printMessage, runQuery } from "./run-query.js";

/** The SDK's query defaults (types/query DefaultPage, DefaultLimit). */
const DEFAULT_PAGE = 1;
const DEFAULT_LIMIT = 100;

const TYPES = ["hash", "acc_seq", "signature"] as const;

interface SearchArgs extends QueryArgs {
  query: string;
  page: number;
  limit: number;
  order_by: string;
}

/** One page of the committed txs matching an event query, as the SDK's QueryTxsByEvents answers it. */
async function searchTxs(a: QueryArgs, query: string, page: number, limit: number, orderBy: string) {
  if (query === "") throw new CliError("query cannot be empty");
  if (!(page > 0)) throw new CliError("page must be greater than 0");
  if (!(limit > 0)) throw new CliError("limit must be greater than 0");
  if (orderBy !== "" && orderBy !== "asc" && orderBy !== "desc")
    throw new CliError("expected order_by to be either `asc` or `desc` or empty");
  const r = await runQuery(a, Service.method.getTxsEvent, {
    query,
    page: BigInt(page),
    limit: BigInt(limit),
    orderBy: orderBy === "desc" ? OrderBy.DESC : orderBy === "asc" ? OrderBy.ASC : OrderBy.UNSPECIFIED,
  });
  return create(SearchTxsResultSchema, {
    totalCount: r.total,
    count: BigInt(r.txResponses.length),
    pageNumber: BigInt(page),
    pageTotal: BigInt(Math.ceil(Number(r.total) / limit)),
    limit: BigInt(limit),
    txs: r.txResponses,
  });
}

/** The one tx an event query must match; more than one would mean the node indexed a signature twice. */
async function onlyTx(a: QueryArgs, query: string, what: string): Promise<TxResponse> {
  const found = await searchTxs(a, query, DEFAULT_PAGE, DEFAULT_LIMIT, "");
  if (found.txs.length === 0) throw new CliError(`found no txs matching given ${what}`);
  if (found.txs.length > 1) throw new CliError(`found ${found.txs.length} txs matching given ${what}`);
  return found.txs[0];
}

/**
 * `query tx [--type hash|acc_seq|signature] <value>` as SDK 0.50's: the TxResponse with the decoded tx, found by
 * hash or through the `tx.acc_seq` / `tx.signature` events the ante handler emits.
 */
export function txLookupCommand(types: TypeRegistry): CommandModule {
  return {
    // One positional: a hash, or with --type an "<addr>/<seq>" or signatures.
    command: "tx <hash>",
    describe:
      'A committed transaction by hash, "<addr>/<seq>" combination or comma-separated signatures (--type)',
    builder: (b) =>
      b.options(queryOptions).option("type", {
        type: "string",
        choices: TYPES,
        default: "hash",
        describe: "what the argument is",
      }),
    handler: async (raw) => {
      const a = raw as unknown as QueryArgs & { type: (typeof TYPES)[number]; hash: string };
      const value = String(a.hash);
      let tx: TxResponse;
      if (a.type === "acc_seq") {
        if (value === "") throw new CliError("`acc_seq` type takes an argument '<addr>/<seq>'");
        tx = await onlyTx(a, `tx.acc_seq='${value}'`, "address and sequence combination");
      } else if (a.type === "signature") {
        if (value === "") throw new CliError("argument should be comma-separated signatures");
        const query = value
          .split(",")
          .map((s) => `tx.signature='${s}'`)
          .join(" AND ");
        tx = await onlyTx(a, query, "signatures");
      } else {
        if (value === "") throw new CliError("argument should be a tx hash");
        if (!/^[0-9A-Fa-f]{64}$/.test(value)) throw new CliError(`invalid tx hash ${JSON.stringify(value)}`);
        const r = await runQuery(a, Service.method.getTx, { hash: value });
        tx = r.txResponse ?? create(TxResponseSchema);
      }
      printMessage(a, TxResponseSchema, tx, types.registry);
    },
  };
}

/** `query txs --query "<events>" [--page] [--limit] [--order_by]`: SDK 0.50's SearchTxsResult. */
export function txSearchCommand(types: TypeRegistry): CommandModule {
  return {
    command: "txs",
    describe:
      "Paginated transactions matching an event query, e.g. --query \"message.sender='sdk1…' AND tx.height > 7\"",
    builder: (b) =>
      b
        .options(queryOptions)
        .option("query", {
          type: "string",
          demandOption: true,
          describe: "the events query (CometBFT syntax)",
        })
        .option("page", { type: "number", default: DEFAULT_PAGE, describe: "the page of results" })
        .option("limit", { type: "number", default: DEFAULT_LIMIT, describe: "transactions per page" })
        .option("order_by", { type: "string", default: "", describe: "by height: asc or desc" }),
    handler: async (raw) => {
      const a = raw as unknown as SearchArgs;
      const found = await searchTxs(a, a.query, a.page, a.limit, a.order_by);
      printMessage(a, SearchTxsResultSchema, found, types.registry);
    },
  };
}
