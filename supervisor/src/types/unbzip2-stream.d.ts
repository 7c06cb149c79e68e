/** unbzip2-stream ships no types: a factory of classic through streams (compressed in, decompressed out). */
declare module "unbzip2-stream" {
  import type { Duplex } from "node:stream";
  export default function unbzip2(): Duplex;
}
