/**
 * LanceDB's Node errors carry their class only in the message's shape (lib/store/lance-errors.ts): one test per shape,
 * each message as LanceDB 0.31 gave it on a damaged table (test/integration/vector-store-heal.test.ts makes them).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { clearCommand, fromLanceDb, isDamage, lanceFailure, lanceReason, noVersion, VectorStoreError, type LanceFailure } from "../../../lib/store/lance-errors";

const CARGO = "/usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f";

/** An error as the native binding throws it: a plain Error, napi's status as its code. */
function native(message: string): Error {
  return Object.assign(new Error(message), { code: "GenericFailure" });
}

const SHAPES: { what: string; kind: LanceFailure; message: string; reason: string }[] = [
  {
    what: "a zero-filled or random data file (its footer is not Lance's)",
    kind: "unreadable",
    message: `Failed to get next batch from stream: lance error: Invalid user input: file does not appear to be a Lance file (invalid magic: [0, 0, 0, 0]), ${CARGO}/lance-file-8.0.0/src/reader.rs:581:24`,
    reason: "file does not appear to be a Lance file (invalid magic: [0, 0, 0, 0])",
  },
  {
    what: "a data file whose version bytes are garbled",
    kind: "unreadable",
    message: `Failed to get next batch from stream: lance error: Invalid user input: Unknown Lance storage version: 2.128, ${CARGO}/lance-file-8.0.0/src/reader.rs:590:24`,
    reason: "Unknown Lance storage version: 2.128",
  },
  {
    what: "a truncated data file",
    kind: "unreadable",
    message: `Failed to get next batch from stream: lance error: LanceError(IO): Generic memory error: Invalid range 0..1920 for object of size 640 bytes, /rustc/1159e78c4747b02ef996e55082b704c09b970588/library/core/src/ops/function.rs:250:5`,
    reason: "Invalid range 0..1920 for object of size 640 bytes",
  },
  {
    what: "garbled metadata inside a data file",
    kind: "unreadable",
    message: `Failed to get next batch from stream: lance error: LanceError(IO): failed to decode Protobuf message: ColumnMetadata.pages: buffer underflow, ${CARGO}/lance-file-8.0.0/src/reader.rs:120:9`,
    reason: "failed to decode Protobuf message: ColumnMetadata.pages: buffer underflow",
  },
  {
    what: "a garbled page that makes LanceDB panic",
    kind: "unreadable",
    message: `Failed to get next batch from stream: task 412 panicked with message "range end index 96 out of range for slice of length 64"`,
    reason: `task 412 panicked with message "range end index 96 out of range for slice of length 64"`,
  },
  {
    what: "a zero-filled manifest",
    kind: "unreadable",
    message: `lance error: Encountered corrupt file tmp/t/fp.lance/_versions/18446744073709551612.manifest: Invalid format: magic number does not match, ${CARGO}/lance-table-8.0.0/src/io/manifest.rs:65:20  Caused by: Invalid format: magic number does not match`,
    reason: "Encountered corrupt file tmp/t/fp.lance/_versions/18446744073709551612.manifest: Invalid format: magic number does not match",
  },
  {
    what: "a random or truncated manifest",
    kind: "unreadable",
    message: `lance error: LanceError(IO): file size is too small, ${CARGO}/lance-io-8.0.0/src/utils.rs:88:20  Caused by: LanceError(IO): file size is too small`,
    reason: "file size is too small",
  },
  {
    what: "a manifest cut to a few bytes",
    kind: "unreadable",
    message: `lance error: LanceError(IO): does not have sufficient data, len: 10, bytes: b"\\x81\\0\\0\\0\\x08\\x04\\x12$c1", ${CARGO}/lance-io-8.0.0/src/utils.rs:70:9`,
    reason: "does not have sufficient data, len: 10",
  },
  {
    what: "an empty manifest",
    kind: "unreadable",
    message: `lance error: LanceError(IO): Generic memory error: Invalid range 0..0 for object of size 0 bytes, ${CARGO}/lance-8.0.0/src/dataset.rs:655:26`,
    reason: "Invalid range 0..0 for object of size 0 bytes",
  },
  {
    what: "a deleted data file",
    kind: "missing",
    message: `Failed to get next batch from stream: lance error: LanceError(IO): Generic LocalFileSystem error: Object at location /tmp/t/fp.lance/data/0101.lance not found: No such file or directory (os error 2), ${CARGO}/lance-io-8.0.0/src/local.rs:10:1`,
    reason: "Object at location /tmp/t/fp.lance/data/0101.lance not found: No such file or directory (os error 2)",
  },
  {
    what: "a table whose _versions folder is gone",
    kind: "missing",
    message: "Table 'fp' was not found  Caused by: Dataset at path tmp/t/fp.lance was not found: Not found: tmp/t/fp.lance/_versions",
    reason: "Table 'fp' was not found",
  },
  {
    what: "a folder it may not read",
    kind: "environment",
    message: `lance error: LanceError(IO): Generic LocalFileSystem error: Unable to open file /tmp/t/fp.lance/data/0101.lance: Permission denied (os error 13), ${CARGO}/lance-io-8.0.0/src/local.rs:10:1`,
    reason: "Unable to open file /tmp/t/fp.lance/data/0101.lance: Permission denied (os error 13)",
  },
  {
    what: "a full disk",
    kind: "environment",
    message: "lance error: LanceError(IO): No space left on device (os error 28)",
    reason: "No space left on device (os error 28)",
  },
  {
    what: "too many open files",
    kind: "environment",
    message: "lance error: LanceError(IO): Too many open files (os error 24)",
    reason: "Too many open files (os error 24)",
  },
  {
    what: "a query naming a column the table lacks",
    kind: "other",
    message: "Failed to execute query stream: GenericFailure, lance error: Invalid user input: Schema error: No field named b. Valid fields are a, _rowid, _rowaddr",
    reason: "Schema error: No field named b. Valid fields are a, _rowid, _rowaddr",
  },
];

for (const s of SHAPES) {
  test(`${s.what}: ${s.kind}, said without Rust's wrappers`, () => {
    const err = native(s.message);
    assert.equal(lanceFailure(err), s.kind);
    assert.equal(isDamage(err), s.kind === "missing" || s.kind === "unreadable");
    assert.equal(lanceReason(err), s.reason);
    assert.doesNotMatch(lanceReason(err), /rustc|cargo|LanceError|lance error|Invalid user input/);
  });
}

test("a table with no committed version (LanceDB 0.30's open while another writer creates or drops it) is told apart; no other shape is", () => {
  for (const s of SHAPES) assert.equal(noVersion(native(s.message)), s.what === "a table whose _versions folder is gone", s.what);
  assert.equal(noVersion(new Error("Table 'toy-1b326f11872b' was not found")), true);
});

test("only the native binding's errors are LanceDB's: not Node's, not the toolkit's own", () => {
  assert.equal(fromLanceDb(native("lance error: x")), true);
  assert.equal(fromLanceDb(Object.assign(new Error("x"), { code: "InvalidArg" })), true);
  assert.equal(fromLanceDb(Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" })), false);
  assert.equal(fromLanceDb(new Error("vector store fp: row for id 'a' has no key")), false);
  assert.equal(fromLanceDb(new VectorStoreError("vector store: x is damaged", "DAMAGED")), false);
});

test("the command that clears a table: a quoted rm -rf for a folder, a delete for a bucket", () => {
  assert.equal(clearCommand("/data/lancedb/toy.lance"), "rm -rf '/data/lancedb/toy.lance'");
  assert.equal(clearCommand("/data/it's/toy.lance"), `rm -rf '/data/it'\\''s/toy.lance'`);
  assert.equal(clearCommand("s3://bucket/lancedb/toy.lance"), "delete every object under s3://bucket/lancedb/toy.lance");
});
