"""The lines of the learner's readiness check (python -m attn_lib.check).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "check.title": (
        "Is this machine ready for the course? (nothing is downloaded; under a minute)",
        "这台电脑能学这门课了吗？（不下载任何东西；不到一分钟）",
    ),
    "check.python": (
        "{name} {version} (the course needs {minimum} or later)",
        "{name} {version}（课程需要 {minimum} 或更高）",
    ),
    "check.library": ("{name} {version} (needs {minimum} or later)", "{name} {version}（需要 {minimum} 或更高）"),
    "check.missing_library": (
        "{name} is not installed: run `python -m pip install -r requirements.txt`",
        "没有安装 {name}：请运行 `python -m pip install -r requirements.txt`",
    ),
    "check.old_library": (
        "{name} {version} is older than {minimum}: run `python -m pip install -r requirements.txt`",
        "{name} {version} 比 {minimum} 旧：请运行 `python -m pip install -r requirements.txt`",
    ),
    "check.font": (
        "the Chinese font {family}: a figure of 猫吃鱼 drew every glyph ({count} characters of the course checked)",
        "中文字体 {family}：画“猫吃鱼”的图时每个字形都画出来了（检查了课程用到的 {count} 个字符）",
    ),
    "check.font_missing": (
        "the font {family} lacks glyphs for {missing}: Chinese labels would show empty boxes. Install a CJK font"
        " (e.g. {example}) or reinstall attn_lib, which ships one",
        "字体 {family} 缺少这些字的字形：{missing}，图上的中文会显示成空方框。请安装一种中文字体"
        "（例如 {example}），或者重新安装自带字体的 attn_lib",
    ),
    "check.font_file_missing": (
        "no CJK font is installed, and the Chinese font attn_lib ships, {path}, is missing or cannot be read (a copy"
        " of attn_lib without its data files): Chinese labels would show empty boxes. Reinstall attn_lib with its"
        " data: in the course's folder, run `python -m pip install -r requirements.txt` (or install a CJK font,"
        " e.g. {example})",
        "没有安装中文字体，attn_lib 自带的中文字体 {path} 也不见了或读不了（这份 attn_lib 缺了它的数据文件）："
        "图上的中文会显示成空方框。请连同数据文件重新安装 attn_lib：在课程文件夹里运行"
        " `python -m pip install -r requirements.txt`（或者安装一种中文字体，例如 {example}）",
    ),
    "check.model": (
        "the model files of {notebooks} ({model}) are in {folder} ({count} file(s), checksums verified)",
        "{notebooks}要用的 {model} 模型文件在 {folder}（共 {count} 个，校验和无误）",
    ),
    "check.model_missing": (
        "the model files of {notebooks} ({model}) are missing ({reason}): run"
        " `python -m attn_lib.models.fetch` once while online",
        "缺少{notebooks}要用的 {model} 模型文件（{reason}）：请在能联网时运行一次 `python -m attn_lib.models.fetch`",
    ),
    "check.notebook": ("notebook {number:02d}", "第 {number} 课"),
    "check.and": (" and ", "和"),
    "check.model_damaged": (
        "a model file of {notebooks} ({model}) is damaged ({reason}): delete the folder {folder}, then run"
        " `python -m attn_lib.models.fetch` once while online",
        "{notebooks}要用的 {model} 模型文件已损坏（{reason}）：请删除文件夹 {folder}，然后在能联网时运行一次"
        " `python -m attn_lib.models.fetch`",
    ),
    "check.widget": (
        "a widget: notebook 00's slider built and redrew its picture ({width} × {height} pixels)",
        "交互控件：第 0 课的滑块建好了，并重新绘制了它的图（{width} × {height} 像素）",
    ),
    "check.widget_failed": (
        "a widget could not be built or redrawn: {error}",
        "交互控件没能建好或重新绘图：{error}",
    ),
    "check.crashed": ("{check}: the check itself failed: {error}", "{check}：检查本身出错了：{error}"),
    "check.ready": (
        "Ready: all {n} checks passed. Open `notebooks/en/00_start_here.ipynb` in {lab}.",
        "可以开始了：{n} 项检查全部通过。请在 {lab} 中打开 `notebooks/zh/00_start_here.ipynb`。",
    ),
    "check.not_ready": (
        "Not ready: {failed} of {n} checks failed (the lines marked ✗ say what to do).",
        "还不能开始：{n} 项检查中有 {failed} 项没有通过（标着 ✗ 的行说明了该怎么做）。",
    ),
}
