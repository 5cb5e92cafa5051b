/* bpw-model-spec.h — architecture-independent description of a decoder-only Transformer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-types.h"

G_BEGIN_DECLS

/* The most Transformer blocks a model may have: the workload schema's maximum, and well
 * inside what the work graph's budget holds under every option (bpw-decompose-size.h). The
 * deepest published models have about 128. */
#define BPW_MODEL_MAX_LAYERS 4096
/* The most cross-attention layers (Llama 3.2 Vision 90B has 20 of its 100) and the most
 * intermediate encoder layers whose outputs feed the projector (Llama 3.2 Vision: 5). */
#define BPW_MODEL_MAX_CROSS_LAYERS 256
#define BPW_VISION_MAX_INTERMEDIATE 16

/* How a vision encoder's features reach the decoder. */
typedef enum
{
  BPW_PROJECTOR_MLP,     /* Llava-1.5: linear vision_hidden -> h, GELU, linear h -> h */
  BPW_PROJECTOR_LINEAR,  /* Llava-1: one linear vision_hidden -> h */
} BpwProjectorKind;

/* A ViT image encoder and its projector, Llava-style: every image becomes the tokens of
 * its patches, prepended to the decoder's text tokens. layers == 0 means a text-only
 * model. The encoder is a pre-norm Transformer with bidirectional attention (every patch
 * attends every patch), biased projections and a GELU MLP (quick-GELU is costed as GELU:
 * both are element-wise and outside the model FLOPs). */
typedef struct
{
  gint64           image_size;    /* pixels per side */
  gint64           patch_size;    /* pixels per patch side */
  gint64           channels;      /* 3 */
  gint64           hidden;
  gint64           layers;        /* in the checkpoint */
  gint64           heads;
  gint64           ffn;
  BpwNormKind      norm;
  gboolean         quick_gelu;    /* x sigmoid(1.702 x) (CLIP) rather than the erf GELU */
  gboolean         class_token;   /* a learned CLS token before the patches */
  gboolean         patch_bias;    /* the patch convolution has a bias (CLIP's has none) */
  gboolean         pre_norm;      /* a norm after the embeddings (CLIP's pre_layrnorm) */
  gboolean         post_norm;     /* a norm on the pooled output, unused by Llava */
  /* Hugging Face's vision_feature_layer: the hidden state taken, counted from the end
   * when negative (-1 = the last layer, -2 = the penultimate, as Llava); layers after it
   * are not run. */
  gint64           feature_layer;
  gboolean         keep_class;    /* feature select "full"; "default" drops the CLS token */
  BpwProjectorKind projector;
  /* Llama 3.2 Vision (Hugging Face mllama), the encoder of a cross-attention decoder:
   * tiles > 0 cuts an image into up to that many tiles of image_size pixels, each of its
   * patches and a class token, padded to a multiple of 8 tokens, and the encoder attends
   * over all tiles of an image together. Tile position tables hold a row per aspect ratio
   * id (0 .. aspect_ratios); the pre-tile, position and post-tile embeddings are gated.
   * The layers run without Q, K, V and output biases (the MLP keeps its biases), then
   * global_layers gated layers (tanh gates on the attention and the MLP); the projector
   * (linear with bias) reads the last hidden state concatenated with the encoder's
   * hidden states at the intermediate indices (Hugging Face's hidden_states: 0 is the
   * embeddings, i the output of layer i - 1). tiles == 0: a Llava encoder, none of these. */
  gint64           tiles;
  gint64           aspect_ratios;
  gint64           global_layers;
  gint64           n_intermediate;
  gint32           intermediate[BPW_VISION_MAX_INTERMEDIATE];
} BpwVisionSpec;

/* A plain struct: specs are small, copied freely and compared by value. All sizes are
 * element counts; nothing here knows about hardware. */
struct _BpwModelSpec
{
  char            *name;          /* owned */
  char            *source;        /* owned, nullable: file or "bundled" it came from */

  gint64           vocab;         /* V */
  gint64           hidden;        /* h, residual width */
  gint64           layers;        /* L */
  gint64           heads;         /* a, query heads */
  gint64           kv_heads;      /* n_kv: = heads for MHA, 1 for MQA */
  gint64           head_dim;      /* d_head; heads * head_dim need not equal hidden */
  gint64           ffn;           /* f, inner width of the MLP (of one expert for MoE) */
  gint64           max_positions; /* learned position table size (ignored for rotary) */

  BpwFfnKind       ffn_kind;
  BpwNormKind      norm;
  BpwPositionKind  positions;
  gboolean         tied_embeddings;
  gboolean         qkv_bias;      /* bias on Q, K, V projections */
  gboolean         linear_bias;   /* bias on the output projection and the MLP matrices */
  gboolean         dropout;       /* dropout layers present in training (masks are stored) */

  /* Sliding-window attention: a query at position i attends the keys at positions
   * max(0, i - window + 1) .. i, so min(i + 1, window) of them (Hugging Face's
   * kv_idx > q_idx - sliding_window on top of the causal mask). 0 = full attention. Layers
   * below window_first attend fully (Qwen2's max_window_layers); 0 = every layer windowed. */
  gint64           window;
  gint64           window_first;

  /* Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank == 0 means standard
   * attention. Queries go through a rank-q_lora_rank bottleneck (0 = a full-rank q_proj,
   * V2-Lite); keys and values are decompressed per head from a latent of kv_lora_rank
   * elements, and one rope key of qk_rope_head_dim elements is shared by all heads. The
   * latent and the rope key are the KV cache. head_dim is the query/key width,
   * qk_nope_head_dim + qk_rope_head_dim, and kv_heads = heads. */
  gint64           q_lora_rank;
  gint64           kv_lora_rank;
  gint64           qk_nope_head_dim;
  gint64           qk_rope_head_dim;
  gint64           v_head_dim;

  /* Mixture of experts; experts == 0 means dense. */
  gint64           experts;
  gint64           top_k;
  gint64           shared_experts;
  gint64           moe_ffn;       /* inner width of one expert; 0 = ffn */
  gint64           moe_every;     /* every n-th layer is MoE (1 = all) */
  gint64           moe_first;     /* first MoE layer index */
  double           capacity_factor; /* 0 = dropless; else slots = ceil(cf * tokens * k / E) */
  /* Node-limited routing (DeepSeek's n_group / topk_group): experts in expert_groups
   * groups, a token routed only inside its topk_groups best groups. 0 = no limit. */
  gint64           expert_groups;
  gint64           topk_groups;
  /* The auxiliary-loss-free balancing bias (e_score_correction_bias): one parameter per
   * routed expert, added to each expert's score before the top-k choice. */
  gboolean         router_bias;
  /* Multi-token-prediction modules (num_nextn_predict_layers), kept apart from the model:
   * each is two norms, a 2h x h projection, one block like the last layer and a final
   * norm; the embedding and the output head are the model's own. In the training work
   * graph after the head, on the last pipeline stage (bpw-decompose-mtp.c); inference
   * builds none (serving speculates with them, bpw-serve.c). */
  gint64           mtp_modules;

  BpwVisionSpec    vision;        /* layers == 0: text only */
  /* Cross-attention layers (Llama 3.2 Vision): the decoder layers at these indices, in
   * increasing order, attend the projected image tokens instead of the text (queries from
   * the text, keys and values from the images, a tanh gate on the attention and one on the
   * MLP); the images take no decoder positions. Their keys and values are computed once
   * per image and cached in inference. The layers run only when the sequence has images
   * (Hugging Face skips them otherwise). n_cross_layers == 0: none. */
  gint64           n_cross_layers;
  gint32           cross_layers[BPW_MODEL_MAX_CROSS_LAYERS];
  /* Rows of the token table beyond the head's vocabulary (mllama's 8 image tokens). */
  gint64           embedding_extra;

  BpwDType         param_dtype;
  BpwDType         activation_dtype;
  BpwDType         gradient_dtype;
  BpwDType         optimizer_dtype;  /* moments */
  BpwDType         master_dtype;     /* master weights; none when = param_dtype */
  BpwOptimizerKind optimizer;
};

void      bpw_model_spec_init_defaults (BpwModelSpec       *spec);
void      bpw_model_spec_copy          (BpwModelSpec       *dest,
                                        const BpwModelSpec *src);
void      bpw_model_spec_clear         (BpwModelSpec       *spec);
/* Every field the same, name and source included. */
gboolean  bpw_model_spec_equal         (const BpwModelSpec *a,
                                        const BpwModelSpec *b);

/* Checks every relation between fields (heads divide, sizes positive, counts that do not
 * overflow). @what names the source for the message ("gpt.json"); field names follow the
 * native format. */
gboolean  bpw_model_spec_validate      (const BpwModelSpec *spec,
                                        GError            **error);

/* The window layer @layer attends with (0 = full attention). */
gint64    bpw_model_spec_layer_window (const BpwModelSpec *spec,
                                       gint64              layer);
/* Layers that attend through a window (0 when the model has none). */
gint64    bpw_model_spec_window_layers (const BpwModelSpec *spec);
/* Keys one sequence of @seq causal positions attends in total through a window of
 * @window tokens (0 = full): the sum over i < seq of min(i + 1, window), in closed form
 * seq (seq + 1) / 2 when window >= seq, else window (window + 1) / 2 + (seq - window) window. */
guint64   bpw_model_spec_causal_keys  (guint64             seq,
                                       gint64              window);
/* Cache slots (token x layer) one sequence holds at @context cached positions: a windowed
 * layer keeps a rolling buffer of min(context, window) positions, a full layer all. */
guint64   bpw_model_spec_kv_slots     (const BpwModelSpec *spec,
                                       guint64             context);

/* "sliding window 4096 tokens (layers 14–27)", translated; NULL without a window. */
char     *bpw_model_spec_describe_window (const BpwModelSpec *spec);

gboolean  bpw_model_spec_is_moe_layer  (const BpwModelSpec *spec,
                                        gint64              layer);
gint64    bpw_model_spec_expert_ffn    (const BpwModelSpec *spec);

/* Exact parameter counts (elements). */
guint64   bpw_model_spec_parameters          (const BpwModelSpec *spec);
guint64   bpw_model_spec_layer_parameters    (const BpwModelSpec *spec,
                                              gint64              layer);
guint64   bpw_model_spec_embedding_parameters (const BpwModelSpec *spec); /* token (+ position) table */
guint64   bpw_model_spec_head_parameters     (const BpwModelSpec *spec); /* final norm + untied head */
/* Parameters a token actually uses: top-k experts instead of all. */
guint64   bpw_model_spec_active_parameters   (const BpwModelSpec *spec);
/* Parameters of the MTP modules, apart from the model's (0 without them). */
guint64   bpw_model_spec_mtp_parameters      (const BpwModelSpec *spec);

/* Whether attention is multi-head latent attention. */
gboolean  bpw_model_spec_is_mla              (const BpwModelSpec *spec);
/* Elements one token's K and V take in one layer's cache: 2 kv_heads head_dim, or the
 * MLA latent and rope key, kv_lora_rank + qk_rope_head_dim. */
guint64   bpw_model_spec_kv_elements         (const BpwModelSpec *spec);
/* Width of one head's attention output: v_head_dim under MLA, else head_dim. */
gint64    bpw_model_spec_value_dim           (const BpwModelSpec *spec);

/* Whether the model has a vision encoder. */
gboolean  bpw_model_spec_has_vision          (const BpwModelSpec *spec);
/* Encoder layers an image runs through: up to the feature layer. */
gint64    bpw_model_spec_vision_run_layers   (const BpwModelSpec *spec);
/* Tokens of one image in the encoder: patches, plus the class token. */
gint64    bpw_model_spec_vision_seq          (const BpwModelSpec *spec);
/* Decoder tokens one image becomes: the patches, plus the class token when kept. */
gint64    bpw_model_spec_image_tokens        (const BpwModelSpec *spec);
/* Parameters of the vision tower as its checkpoint holds them (every layer, the post
 * norm included), and of the projector; both are in bpw_model_spec_parameters(). */
guint64   bpw_model_spec_vision_parameters   (const BpwModelSpec *spec);
guint64   bpw_model_spec_projector_parameters (const BpwModelSpec *spec);
/* Parameters of one encoder layer. */
guint64   bpw_model_spec_vision_layer_parameters (const BpwModelSpec *spec);

/* Cross-attention (bpw-model-spec.c): whether the model has cross-attention layers, and
 * whether @layer is one. */
gboolean  bpw_model_spec_has_cross_attention (const BpwModelSpec *spec);
gboolean  bpw_model_spec_is_cross_layer      (const BpwModelSpec *spec,
                                              gint64              layer);
/* Layers with self-attention and a text KV cache: layers less the cross-attention ones. */
gint64    bpw_model_spec_self_layers         (const BpwModelSpec *spec);
/* Tokens of one image a cross-attention layer attends (tiles x (patches + class)), and
 * the encoder's tokens of one image (each tile padded to a multiple of 8). */
gint64    bpw_model_spec_cross_tokens        (const BpwModelSpec *spec);
gint64    bpw_model_spec_vision_encoder_tokens (const BpwModelSpec *spec);
/* Width of the encoder output the projector reads: hidden x (1 + intermediate layers). */
gint64    bpw_model_spec_vision_output_width (const BpwModelSpec *spec);
/* Cache elements of one image: its keys and values in every cross-attention layer,
 * n_cross_layers x cross tokens x 2 kv_heads head_dim. */
guint64   bpw_model_spec_image_kv_elements   (const BpwModelSpec *spec);

/* Bundled models by name: "gpt3-175b", "llama3-8b", ... */
const char * const *bpw_model_spec_bundled_names (void);
gboolean  bpw_model_spec_lookup_bundled (const char   *name,
                                         BpwModelSpec *spec);

G_END_DECLS
