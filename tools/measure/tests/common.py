"""What the kit's tests share: the import path and toy configs."""

import os
import sys

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(KIT))
if KIT not in sys.path:
    sys.path.insert(0, KIT)

SCHEMA = os.path.join(ROOT, "data", "schemas", "bpw-measurement-pack.schema.json")
SHARED_PACK = os.path.join(ROOT, "tests", "data", "measurements", "h200-pytorch", "pack.json")

TOY = {
    "llama": {"model_type": "llama", "hidden_size": 32, "intermediate_size": 48,
              "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
              "vocab_size": 64, "max_position_embeddings": 64, "rms_norm_eps": 1e-5},
    "gpt2": {"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 64,
             "vocab_size": 64, "n_inner": 64, "tie_word_embeddings": True},
    "mixtral": {"model_type": "mixtral", "hidden_size": 32, "intermediate_size": 48,
                "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 1,
                "vocab_size": 64, "max_position_embeddings": 64, "num_local_experts": 4,
                "num_experts_per_tok": 2},
}
