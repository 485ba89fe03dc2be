/**
 * Every built-in retriever, registered by name; import this module (or lib/index.ts) rather
 * than lib/registry.ts so that the names resolve.
 */
import "./sparse/register";
import "./dense/register";
import "./fusion/register";
import "./llm/register";
import "./rerank/register";
import "./data/register";

export * from "./registry";
