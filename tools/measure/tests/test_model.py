import unittest

from common import TOY

import torch

from measure_kit.model import (Decoder, KVCache, attention, config_from_hf, forward_flops,
                               matmul_parameters, sdpa_native_gqa, step_flops)


class ConfigTest(unittest.TestCase):
    def test_families(self):
        self.assertEqual(config_from_hf(TOY["llama"]).kv_heads, 2)
        self.assertEqual(config_from_hf(TOY["gpt2"]).family, "gpt2")
        self.assertTrue(config_from_hf(TOY["gpt2"]).tie_embeddings)
        moe = config_from_hf(TOY["mixtral"])
        self.assertEqual((moe.experts, moe.top_k), (4, 2))

    def test_refusals_name_the_field(self):
        bad = dict(TOY["llama"], hidden_size=-3)
        with self.assertRaisesRegex(ValueError, "hidden_size"):
            config_from_hf(bad)
        with self.assertRaisesRegex(ValueError, "model_type 'bert'"):
            config_from_hf({"model_type": "bert"})
        with self.assertRaisesRegex(ValueError, "key-value heads"):
            config_from_hf(dict(TOY["llama"], num_key_value_heads=3))
        with self.assertRaisesRegex(ValueError, "num_experts_per_tok"):
            config_from_hf(dict(TOY["mixtral"], num_experts_per_tok=5))


class ModelTest(unittest.TestCase):
    def forward_and_decode(self, family):
        """Decoding token s at context s from a cache filled by the tokens before it gives
        the logits a full forward pass gives at position s."""
        c = config_from_hf(TOY[family])
        torch.manual_seed(1)
        model = Decoder(c).eval()
        tokens = torch.randint(0, c.vocab, (2, 9))
        with torch.no_grad():
            full = model(tokens)
            self.assertEqual(tuple(full.shape), (2, 9, c.vocab))
            cache = KVCache(c, 2, 9, torch.float32, torch.device("cpu"))
            model(tokens[:, :8], 0, cache)
            step = model(tokens[:, 8:], 8, cache)
        torch.testing.assert_close(step[:, 0], full[:, 8], rtol=1e-4, atol=1e-4)

    def test_llama(self):
        self.forward_and_decode("llama")

    def test_gpt2(self):
        self.forward_and_decode("gpt2")

    def test_mixtral(self):
        self.forward_and_decode("mixtral")

    def test_training_step_learns_on_cpu(self):
        c = config_from_hf(TOY["llama"])
        torch.manual_seed(2)
        model = Decoder(c)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        tokens = torch.randint(0, c.vocab, (2, 17))
        losses = []
        for _ in range(5):
            loss = torch.nn.functional.cross_entropy(
                model(tokens[:, :-1]).reshape(-1, c.vocab), tokens[:, 1:].reshape(-1))
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.item())
        self.assertLess(losses[-1], losses[0])


class FlopsTest(unittest.TestCase):
    def linear_weights(self, model, experts_share=1.0):
        total = 0
        for name, module in model.named_modules():
            if isinstance(module, torch.nn.Linear) and name != "head":
                share = experts_share if ".experts." in name else 1.0
                total += module.weight.numel() * share
        return total

    def test_parameters_match_the_modules(self):
        for family in ("llama", "gpt2"):
            c = config_from_hf(TOY[family])
            self.assertEqual(matmul_parameters(c), self.linear_weights(Decoder(c)), family)
        c = config_from_hf(TOY["mixtral"])
        self.assertEqual(matmul_parameters(c),
                         self.linear_weights(Decoder(c), c.top_k / c.experts))

    def test_grouped_query_attention_matches_expanded_heads(self):
        # Whichever path this PyTorch takes (SDPA's own grouped-query or the expansion),
        # query head i attends with key/value head i // (heads / kv_heads).
        torch.manual_seed(0)
        q = torch.randn(2, 4, 5, 8)
        k, v = torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)
        for causal in (True, False):
            got = attention(q, k, v, causal)
            ref = attention(q, k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1),
                            causal)
            self.assertTrue(torch.allclose(got, ref, atol=1e-5), causal)
        one = attention(q[:, :, -1:], k, v, causal=False)
        self.assertTrue(torch.allclose(one, attention(q, k, v, True)[:, :, -1:], atol=1e-5))
        self.assertIsInstance(sdpa_native_gqa(), bool)

    def test_closed_forms(self):
        c = config_from_hf(TOY["llama"])
        p, h, v, hd = matmul_parameters(c), c.hidden, c.vocab, c.head_dim
        # One token, no context: it attends to itself only.
        self.assertEqual(forward_flops(c, 1, 1), 2 * p + 2 * h * v + 4 * c.heads * hd * c.layers)
        self.assertEqual(step_flops(c, "train", 2, seq=16), 3 * forward_flops(c, 2, 16))
        self.assertEqual(step_flops(c, "prefill", 1, seq=16) - forward_flops(c, 1, 16),
                         -2 * 15 * h * v)
        self.assertEqual(step_flops(c, "decode", 4, context=10),
                         4 * (2 * p + 2 * h * v) + 4 * 4 * c.heads * hd * 11 * c.layers)
        with self.assertRaises(ValueError):
            step_flops(c, "serve", 1)


if __name__ == "__main__":
    unittest.main()
