/** This machine as Go names it in plan-info keys: linux/amd64, darwin/arm64, windows/386, … */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === "win32" ? "windows" : platform;
  const goArch =
    ({ x64: "amd64", ia32: "386", arm: "arm", arm64: "arm64" } as Record<string, string>)[arch] ?? arch;
  return `${os}/${goArch}`;
}
