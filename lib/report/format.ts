/** Number formatting for every table; it lives in util/ so that experiments' writers (tables.tex) share it. */
export { formatFixed } from "../util/format-fixed";
