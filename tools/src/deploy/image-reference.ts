/** An image reference pinned to a tag other than `latest`, or to a digest (`name:tag`, `name@sha256:…`). */
export function isPinnedImage(image: string): boolean {
  return /(:[\w][\w.-]*|@sha256:[0-9a-f]{64})$/.test(image) && !image.endsWith(':latest');
}
