import type { AbciEvent } from "../../app/events.js";
import { txHash } from "../../app/tx-hash.js";
import type { TxResult } from "../../app/tx-result.js";
import type { CommittedBlock } from "../../consensus/block-producer.js";
import { base64, blockIdJson, blockJson, headerJson, hexUpper } from "./comet-json.js";

/**
 * One event as CometBFT 0.38's event bus publishes it: its data as `{"type","value"}` JSON text (ready to splice
 * into each subscriber's answer) and its attributes flattened to `"type.key": [values]`, which queries match.
 */
export interface CometEvent {
  data: string;
  events: Record<string, string[]>;
}

/**
 * A committed block's events in the order CometBFT fires them: NewBlock, NewBlockHeader, NewBlockEvents, then
 * one Tx per tx. The payloads follow CometBFT's JSON encoder, which leaves out empty fields tagged omitempty
 * (a tx's code 0, index 0, an attribute's index false …), so they read as a CometBFT node's do.
 */
export function cometEvents(b: CommittedBlock): CometEvent[] {
  const height = String(b.height);
  const blockEvents = eventsJsonOmitEmpty(b.events);
  const out: CometEvent[] = [
    {
      data: eventData("NewBlock", {
        block: blockJson(b.block),
        block_id: blockIdJson(b.blockId),
        result_finalize_block: omitEmpty({
          events: blockEvents,
          tx_results: b.txResults.map(execTxResultJson),
          validator_updates: null,
          app_hash: base64(b.appHash),
        }),
      }),
      events: flatten(b.events, "NewBlock"),
    },
    {
      data: eventData("NewBlockHeader", { header: headerJson(b.block.header) }),
      events: { "tm.event": ["NewBlockHeader"] },
    },
    {
      data: eventData("NewBlockEvents", {
        height,
        events: blockEvents,
        num_txs: String(b.txResults.length),
      }),
      events: flatten(b.events, "NewBlockEvents"),
    },
  ];
  const txs = b.block.data?.txs ?? [];
  for (const [index, result] of b.txResults.entries()) {
    const tx = txs[index];
    const events = flatten(result.events, "Tx");
    events["tx.hash"] = [hexUpper(txHash(tx))];
    events["tx.height"] = [height];
    const txResult = { ...omitEmpty({ height, index, tx: base64(tx) }), result: execTxResultJson(result) };
    out.push({ data: eventData("Tx", { TxResult: txResult }), events });
  }
  return out;
}

function eventData(type: string, value: unknown): string {
  return JSON.stringify({ type: `tendermint/event/${type}`, value });
}

function flatten(events: readonly AbciEvent[], kind: string): Record<string, string[]> {
  const out = flatAttributes(events);
  out["tm.event"] = [...(out["tm.event"] ?? []), kind];
  return out;
}

/** `"type.key": [values]` of every attribute, skipping nameless events and keyless attributes, as CometBFT. */
export function flatAttributes(events: readonly AbciEvent[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of events) {
    if (!e.type) continue;
    for (const a of e.attributes) {
      if (!a.key) continue;
      const tag = `${e.type}.${a.key}`;
      const values = out[tag];
      if (values) values.push(a.value);
      else out[tag] = [a.value];
    }
  }
  return out;
}

/** An object without the fields Go's omitempty drops: 0, "", false, empty lists; null stays (nil slices). */
function omitEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o) as [keyof T, unknown][]) {
    if (v === 0 || v === "" || v === false || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v as T[keyof T];
  }
  return out;
}

function eventsJsonOmitEmpty(events: readonly AbciEvent[]) {
  return events.map((e) =>
    omitEmpty({
      type: e.type,
      attributes: e.attributes.map((a) => omitEmpty({ key: a.key, value: a.value, index: a.index })),
    }),
  );
}

/** ExecTxResult as CometBFT's encoder writes it in events: 64-bit numbers as strings, empty fields left out. */
function execTxResultJson(r: TxResult) {
  return omitEmpty({
    code: r.code,
    data: base64(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: r.gasWanted === 0n ? "" : String(r.gasWanted),
    gas_used: r.gasUsed === 0n ? "" : String(r.gasUsed),
    events: eventsJsonOmitEmpty(r.events),
    codespace: r.codespace,
  });
}
