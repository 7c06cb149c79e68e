import { utf8Bytes } from "../store/utf8-bytes.js";
import { lengthDelimitedSize, ProtoWriter, varintSize } from "./proto-writer.js";

/** One message's response as a tx result carries it: an Any. */
export interface MsgResponse {
  typeUrl: string;
  value: Uint8Array;
}

/**
 * A successful tx's result data, TxMsgData{msg_responses: repeated Any = 2}, written by hand for every tx of a
 * block: byte for byte what protobuf-es writes (every response is written, an empty one as a zero-length Any).
 */
export function encodeTxMsgData(responses: readonly MsgResponse[]): Uint8Array {
  const urls = responses.map((r) => utf8Bytes(r.typeUrl));
  const sizes = responses.map(
    (r, i) => lengthDelimitedSize(urls[i].length) + lengthDelimitedSize(r.value.length),
  );
  let total = 0;
  for (const size of sizes) total += 1 + varintSize(size) + size;
  const w = new ProtoWriter(total);
  responses.forEach((r, i) => {
    w.byte((2 << 3) | 2);
    w.varint(sizes[i]);
    if (urls[i].length > 0) w.lengthDelimited((1 << 3) | 2, urls[i]);
    if (r.value.length > 0) w.lengthDelimited((2 << 3) | 2, r.value);
  });
  return w.done();
}
