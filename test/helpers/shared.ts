import path from "node:path";

/** ../shared beside the repo (CI copies it there). */
export const SHARED = path.resolve(__dirname, "..", "..", "..", "shared");
export const sharedPath = (...parts: string[]) => path.join(SHARED, ...parts);
export const REPO = path.resolve(__dirname, "..", "..");
