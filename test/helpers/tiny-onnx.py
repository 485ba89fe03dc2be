#!/usr/bin/python3
"""Write two tiny BERT-shaped model repositories that transformers.js (4.x) loads:

  <out>/tiny-embed/  config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx
      BertModel: inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq]);
      output last_hidden_state (float32 [batch, seq, DIM]) = tanh((E[ids] + T[types]) @ W)
      (token-wise, so padding cannot change a real token's vector).
  <out>/tiny-ce/     the same files; BertForSequenceClassification with one logit:
      logits (float32 [batch, 1]) = (masked mean of the hidden states) @ V + b

Random weights from a fixed seed; a real WordPiece tokenizer.json (Greek letters, a few Latin).
Needs Debian's python3-onnx (and its python3-numpy): run with /usr/bin/python3.
Usage: tiny-onnx.py <out-dir> [dim]
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
DIM = int(sys.argv[2]) if len(sys.argv) > 2 else 32
MAX_LEN = 32

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# BertNormalizer lowercases and strips accents, so the vocabulary has no tonos.
LETTERS = list("αβγδεζηθικλμνξοπρστυφχψως") + list("abcdefghijklmnopqrstuvwxyz") + list("0123456789.,;")
VOCAB = SPECIAL + LETTERS + ["##" + c for c in LETTERS]
IDS = {t: i for i, t in enumerate(VOCAB)}


def tokenizer_json():
    added = [
        {"id": IDS[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for t in SPECIAL
    ]
    cls, sep = {"id": "[CLS]", "type_id": 0}, {"id": "[SEP]", "type_id": 0}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": cls}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": sep}],
            "pair": [{"SpecialToken": cls}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": sep},
                     {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {t: {"id": t, "ids": [IDS[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": IDS},
    }


def tokenizer_config():
    return {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": MAX_LEN,
            "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
            "mask_token": "[MASK]", "clean_up_tokenization_spaces": True}


def config(arch):
    c = {"architectures": [arch], "model_type": "bert", "hidden_size": DIM, "num_attention_heads": 1,
         "num_hidden_layers": 1, "intermediate_size": DIM, "vocab_size": len(VOCAB),
         "max_position_embeddings": MAX_LEN, "type_vocab_size": 2, "pad_token_id": 0}
    if arch == "BertForSequenceClassification":
        c["id2label"] = {"0": "LABEL_0"}
        c["label2id"] = {"LABEL_0": 0}
    return c


def graph(classifier, rng):
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ["input_ids", "attention_mask", "token_type_ids"]]
    init = [
        numpy_helper.from_array(rng.standard_normal((len(VOCAB), DIM)).astype(np.float32), "E"),
        numpy_helper.from_array(rng.standard_normal((2, DIM)).astype(np.float32) * 0.1, "T"),
        numpy_helper.from_array(rng.standard_normal((DIM, DIM)).astype(np.float32) / np.sqrt(DIM), "W"),
    ]
    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["e"], axis=0),
        helper.make_node("Gather", ["T", "token_type_ids"], ["t"], axis=0),
        helper.make_node("Add", ["e", "t"], ["et"]),
        helper.make_node("MatMul", ["et", "W"], ["h"]),
        helper.make_node("Tanh", ["h"], ["last_hidden_state"]),
    ]
    # the masked mean over the sequence: the cross-encoder's pooled state, and the embedder's own
    # pooled output (as EmbeddingGemma's graph gives sentence_embedding), scaled so it differs from mean pooling
    init += [
        numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
    ]
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mf", "axis2"], ["m3"]),
        helper.make_node("Mul", ["last_hidden_state", "m3"], ["hm"]),
        helper.make_node("ReduceSum", ["hm", "axis1"], ["s"], keepdims=0),
        helper.make_node("ReduceSum", ["m3", "axis1"], ["n"], keepdims=0),
        helper.make_node("Div", ["s", "n"], ["pooled"]),
    ]
    if not classifier:
        init.append(numpy_helper.from_array(np.linspace(0.5, 1.5, DIM).astype(np.float32), "scale"))
        nodes.append(helper.make_node("Mul", ["pooled", "scale"], ["sentence_embedding"]))
        outs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", DIM]),
                helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", DIM])]
        return helper.make_graph(nodes, "tiny-embed", ints, outs, init)
    init += [
        numpy_helper.from_array(rng.standard_normal((DIM, 1)).astype(np.float32), "V"),
        numpy_helper.from_array(np.array([0.25], dtype=np.float32), "b"),
    ]
    nodes += [
        helper.make_node("MatMul", ["pooled", "V"], ["pv"]),
        helper.make_node("Add", ["pv", "b"], ["logits"]),
    ]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    return helper.make_graph(nodes, "tiny-ce", ints, [out], init)


def write(name, arch, classifier, seed):
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    model = helper.make_model(graph(classifier, np.random.default_rng(seed)),
                              opset_imports=[helper.make_opsetid("", 13)], producer_name="gbr-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "onnx", "model.onnx"))
    for f, obj in [("config.json", config(arch)), ("tokenizer.json", tokenizer_json()),
                   ("tokenizer_config.json", tokenizer_config())]:
        with open(os.path.join(d, f), "w", encoding="utf-8") as fh:
            json.dump(obj, fh, ensure_ascii=False, indent=1)


write("tiny-embed", "BertModel", False, 31)
write("tiny-ce", "BertForSequenceClassification", True, 32)
print(OUT)
