/** Binary searches in arrays kept ascending by a numeric key. */

/** The number of leading elements for which `before` holds, in an array where it holds for a prefix only. */
function partitionPoint<T>(array: readonly T[], before: (element: T) => boolean): number {
  let lo = 0;
  let hi = array.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(array[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The number of leading elements whose key is at most `value` (the index to insert `value` after its equals). */
export function upperBound<T>(array: readonly T[], value: number, key: (element: T) => number): number {
  return partitionPoint(array, (element) => key(element) <= value);
}

/** The number of leading elements whose key is below `value` (the index of its first equal). */
export function lowerBound<T>(array: readonly T[], value: number, key: (element: T) => number): number {
  return partitionPoint(array, (element) => key(element) < value);
}

export const identity = (value: number) => value;
