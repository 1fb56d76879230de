import { h } from "./dom.js";

/** Hands fetched bytes to the browser as a download named `name` (a plain link could not carry the bearer token). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  h("a", { href: url, download: name }).click();
  // the browser has taken the bytes once the click's download started
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
