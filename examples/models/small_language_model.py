"""A small causal language model end to end: token embeddings, two causal
linear transformer blocks (examples/models/causal_linear_transformer.py), a
final layer norm and the vocabulary projection. Its input is the token ids
(int64), its output the logits at every position. Linea raises each block's
attention to `linea.linear_attention mask = causal normalize`; the rest (the
embedding's gather, norms, projections, MLPs) runs as the model wrote it.

    .deps/frontend/bin/python examples/models/small_language_model.py
"""
import torch

from _demo import demo
from causal_linear_transformer import CausalLinearAttentionBlock

VOCABULARY = 1000


class SmallLanguageModel(torch.nn.Module):
    def __init__(self, vocabulary=VOCABULARY, model_dim=256, heads=4, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocabulary, model_dim)
        self.blocks = torch.nn.ModuleList(CausalLinearAttentionBlock(model_dim, heads)
                                          for _ in range(layers))
        self.norm = torch.nn.LayerNorm(model_dim)
        self.head = torch.nn.Linear(model_dim, vocabulary, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def inputs(length):
    return (torch.randint(0, VOCABULARY, (1, length)),)


DYNAMIC = {0: {1: "L"}}


def example():
    """For `python3 -m linea.import small_language_model.py`."""
    return SmallLanguageModel(), inputs(64), DYNAMIC


if __name__ == "__main__":
    demo(SmallLanguageModel(), inputs, DYNAMIC, lengths=[256, 1024, 4096])
