/** How a download retries and when it gives up on a silent source. */
export interface DownloadTiming {
  retries: number;
  /** No byte for this long aborts the attempt. */
  stallTimeoutMs: number;
  /** First backoff; doubled after each failed attempt. */
  backoffMs: number;
}

/** The downloader's timing unless told otherwise; VISOR_DOWNLOAD_STALL_TIMEOUT defaults to its stall timeout. */
export const DEFAULT_DOWNLOAD: DownloadTiming = {
  retries: 4,
  stallTimeoutMs: 30_000,
  backoffMs: 500,
};

/** VISOR_MAX_DOWNLOAD_BYTES by default: far above any node binary, far below a disk. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;
