import { Transform } from "node:stream";
import { VisorError } from "../errors/visor-error.js";
import { lackOfSpaceWhileWriting } from "../host/disk-space.js";

/** Past this, an archive entry is refused (a decompression bomb is not a binary); so is an archive past it in all. */
export const MAX_UNPACKED_BYTES = 4 * 1024 ** 3;

/**
 * The bytes one artifact may unpack to, counted as they stream out of a decoder: a decompression bomb is
 * stopped at the limit, not after it has filled the disk, and a disk that runs short stops it too.
 */
export class UnpackBudget {
  private used = 0;

  constructor(readonly opts: { maxBytes: number; dir: string }) {}

  /** A pass-through that counts against this budget; `what` names the stream in the error. */
  meter(what: string): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        const before = this.used;
        this.used += chunk.length;
        if (this.used > this.opts.maxBytes)
          return cb(
            new VisorError(
              "ARCHIVE",
              `refusing archive: ${what} unpacks to more than ${this.opts.maxBytes} bytes (a decompression bomb, or no binary)`,
            ),
          );
        const lack = lackOfSpaceWhileWriting(this.opts.dir, before, this.used, 0);
        if (lack) return cb(new VisorError("ARCHIVE", `not enough disk space to unpack ${what}: ${lack}`));
        cb(null, chunk);
      },
    });
  }
}
