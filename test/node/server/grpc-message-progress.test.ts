import { describe, expect, it } from "vitest";
import { GrpcMessageProgress } from "../../../node/src/server/grpc/grpc-message-progress.js";

/** gRPC's framing of one message: flag byte, 4-byte big-endian length, the bytes. */
const framed = (body: number) => {
  const b = Buffer.alloc(5 + body, 7);
  b[0] = 0;
  b.writeUInt32BE(body, 1);
  return b;
};

describe("GrpcMessageProgress", () => {
  it("counts the bytes of the message under way, however the stream is cut, and completes each message", () => {
    const stream = Buffer.concat([framed(300), framed(0), framed(70_000), framed(1)]);
    for (const cut of [1, 2, 3, 5, 6, 17, 305, 4096, stream.length]) {
      const p = new GrpcMessageProgress();
      let completed = 0;
      let peak = 0;
      for (let i = 0; i < stream.length; i += cut) {
        completed += p.push(stream.subarray(i, i + cut));
        peak = Math.max(peak, p.pending);
      }
      expect([completed, p.pending], `cut ${cut}`).toEqual([4, 0]);
      // Never more than one message's bytes: what grpc-js holds for it.
      expect(peak).toBeLessThanOrEqual(70_000);
    }
  });

  it("holds the bytes of a message one short of its length", () => {
    const p = new GrpcMessageProgress();
    const m = framed(1000);
    expect(p.push(m.subarray(0, 3))).toBe(0);
    expect(p.pending).toBe(0);
    expect(p.push(m.subarray(3, m.length - 1))).toBe(0);
    expect(p.pending).toBe(999);
    expect(p.push(m.subarray(m.length - 1))).toBe(1);
    expect(p.pending).toBe(0);
  });

  it("reads lengths past 2^31 without going negative", () => {
    const p = new GrpcMessageProgress();
    p.push(Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    expect(p.pending).toBe(3);
  });
});
