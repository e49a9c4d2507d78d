"""Measure the EXIF-thumbnail comparison (rabench/engine/provenance/thumbnail.py) on genuine pairs and edits.

    .venv/bin/python scripts/thumbnail-calibration.py SROIE_DIR PHOTOS_DIR OUT.jsonl REPS [SEED]

Genuine pairs, from every image of PHOTOS_DIR (*.jpg) and the SROIE dev scans with ids < 245
(SROIE_DIR/img, key, box; never the held-out ids >= 245): a thumbnail made the ways devices make
one (160/256/320 px, 160x120 letterboxed, box / bilinear / bicubic / Lanczos / Hamming / point
sampling, sharpening, tone curves, softening, a crop of up to 1.5 %, JPEG 50-95) and a main
image as editors and messaging apps leave it (noise, a 45-95 % resize, a re-save, JPEG 55-95;
15 % stored sideways with EXIF orientation 6). Edits: the same, but the SROIE total or date
repainted in the main image (paper-coloured patch, new digits in DejaVu at the line's height)
after the thumbnail was made. Every file goes through the engine's own reader
(read_bytes -> FileFacts.thumb). Writes one JSON row per pair and prints a summary: proofs,
opinions and the largest local score (1 = the proof bar) on genuine pairs; found edits by the
edited text's height in thumbnail pixels.
"""

import glob
import io
import json
import os
import sys

import numpy as np
import piexif
from PIL import Image, ImageDraw, ImageFont, ImageFilter
from rabench.engine.provenance.read import read_bytes

FILTERS = {
    "box": Image.BOX,
    "bilinear": Image.BILINEAR,
    "bicubic": Image.BICUBIC,
    "lanczos": Image.LANCZOS,
    "nearest": Image.NEAREST,
    "hamming": Image.HAMMING,
}


def jpeg(img, q, exif=None):
    b = io.BytesIO()
    kw = {"quality": q}
    if exif is not None:
        kw["exif"] = exif
    img.save(b, "JPEG", **kw)
    return b.getvalue()


def make_thumb(src, rng):
    p = {}
    t = src.convert("RGB")
    if rng.random() < 0.25:  # thumbnail from a slightly different framing (a few px of crop)
        c = rng.uniform(0.0, 0.015)
        w, h = t.size
        t = t.crop(
            (
                round(w * c * rng.random()),
                round(h * c * rng.random()),
                w - round(w * c * rng.random()),
                h - round(h * c * rng.random()),
            )
        )
        p["crop"] = round(c, 3)
    size = int(rng.choice([160, 160, 160, 256, 320]))
    letter = size == 160 and rng.random() < 0.4
    f = str(rng.choice(list(FILTERS)))
    p.update(size=size, filter=f, letterbox=letter)
    if f == "nearest" or rng.random() < 0.2:
        t2 = t.copy()
        t2.draft("RGB", (size * 2, size * 2))
    box = (size, 120) if letter else (size, size)
    s = min(box[0] / t.width, box[1] / t.height)
    tw, th = max(1, round(t.width * s)), max(1, round(t.height * s))
    t = t.resize((tw, th), FILTERS[f])
    if rng.random() < 0.3:
        r = rng.choice([0.6, 1.0, 1.5])
        pc = int(rng.integers(40, 160))
        t = t.filter(ImageFilter.UnsharpMask(radius=r, percent=pc, threshold=0))
        p["sharpen"] = (r, pc)
    if rng.random() < 0.3:
        g = float(rng.uniform(0.75, 1.35))
        t = t.point(lambda v: round(255 * (v / 255) ** g))
        p["gamma"] = round(g, 2)
    if rng.random() < 0.15:
        t = t.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8)))
        p["soft"] = 1
    if letter:
        canvas = Image.new("RGB", box, "black")
        canvas.paste(t, ((box[0] - tw) // 2, (box[1] - th) // 2))
        t = canvas
    q = int(rng.integers(50, 96))
    p["tq"] = q
    return jpeg(t, q), p


def finish_main(img, rng, p):
    m = img.convert("RGB")
    if rng.random() < 0.3:
        a = np.asarray(m, np.float32) + rng.normal(0, rng.uniform(1, 4), (m.height, m.width, 1))
        m = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        p["noise"] = 1
    if rng.random() < 0.4:
        k = float(rng.uniform(0.45, 0.95))
        m = m.resize((round(m.width * k), round(m.height * k)), Image.LANCZOS)
        p["resize"] = round(k, 2)
    if rng.random() < 0.3:  # an editor's re-save before the last one
        m = Image.open(io.BytesIO(jpeg(m, int(rng.integers(70, 96)))))
        m.load()
        p["resaved"] = 1
    p["q"] = int(rng.integers(55, 96))
    return m


def exif_for(thumb, orientation=1):
    return piexif.dump(
        {
            "0th": {
                piexif.ImageIFD.Make: "Apple",
                piexif.ImageIFD.Model: "iPhone 12",
                piexif.ImageIFD.Orientation: orientation,
            },
            "Exif": {},
            "1st": {piexif.ImageIFD.Compression: 6},
            "thumbnail": thumb,
        }
    )


def pair(orig, main, rng):
    thumb_src = orig
    orientation = 1
    p = {}
    if rng.random() < 0.15:  # stored rotated, orientation 6; the thumbnail from the stored pixels or upright
        orientation = 6
        main = main.transpose(Image.Transpose.ROTATE_90)
        if rng.random() < 0.5:
            thumb_src = orig.transpose(Image.Transpose.ROTATE_90)
        p["orient"] = 6
    tb, tp = make_thumb(thumb_src, rng)
    p.update(tp)
    m = finish_main(main, rng, p)
    data = jpeg(m, p["q"], exif_for(tb, orientation))
    f = read_bytes(data, "image/jpeg")
    return f.thumb, p


def load_sroie(root, ids_below=245):
    out = []
    for img in sorted(glob.glob(f"{root}/img/*.jpg")):
        sid = os.path.basename(img)[:-4]
        if int(sid) >= ids_below:
            continue
        key = json.load(open(f"{root}/key/{sid}.json"))
        lines = []
        for row in open(f"{root}/box/{sid}.csv", encoding="utf-8", errors="replace"):
            parts = row.strip().split(",", 8)
            if len(parts) == 9:
                xs = [int(v) for v in parts[0:8:2]]
                ys = [int(v) for v in parts[1:8:2]]
                lines.append(((min(xs), min(ys), max(xs), max(ys)), parts[8]))
        out.append((sid, img, key, lines))
    return out


def _font(px, bold):
    return ImageFont.truetype(
        "/usr/share/fonts/truetype/dejavu/" + ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"), max(6, px)
    )


def repaint(img, box, old, rng):
    """Paint ``old`` (a substring of a line) over with a changed value, the way a hand edit does."""
    new = "".join(str(rng.integers(0, 10)) if ch.isdigit() else ch for ch in old)
    if new == old:
        new = "1" + old
    g = img.convert("RGB")
    a = np.asarray(g.convert("L"), np.float32)
    x0, y0, x1, y1 = box
    region = a[y0:y1, x0:x1]
    paper = float(np.percentile(region, 90))
    ink = float(np.percentile(region, 5))
    d = ImageDraw.Draw(g)
    h = y1 - y0
    font = _font(int(h * 0.85), rng.random() < 0.5)
    tw = d.textlength(new, font=font)
    d.rectangle((x1 - tw - 2, y0, x1, y1), fill=(round(paper),) * 3)
    d.text((x1 - tw, y0 + h * 0.05), new, fill=(round(ink),) * 3, font=font)
    return g, new


def edit(sid, img, key, lines, rng, field):
    val = (key.get(field) or "").strip()
    if not val:
        return None
    hits = [(b, t) for b, t in lines if val in t]
    if not hits:
        return None
    box, text = hits[-1]
    # the value's part of the line (right-aligned amounts): shrink the box to the value's share
    x0, y0, x1, y1 = box
    share = len(val) / max(1, len(text))
    vb = (max(x0, round(x1 - (x1 - x0) * share)), y0, x1, y1)
    orig = Image.open(img).convert("RGB")
    edited, new = repaint(orig, vb, val, rng)
    return orig, edited, vb, (val, new)


def main():
    if len(sys.argv) not in (5, 6):
        print("usage: thumbnail-calibration.py SROIE_DIR PHOTOS_DIR OUT.jsonl REPS [SEED]", file=sys.stderr)
        return 2
    sroie, us, out, n_rep = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rng = np.random.default_rng(int(sys.argv[5]) if len(sys.argv) == 6 else 7)
    rows = []
    genu = [("us/" + os.path.basename(f), f) for f in sorted(glob.glob(us + "/*.jpg"))]
    sro = load_sroie(sroie)
    genu += [("sroie/" + s[0], s[1]) for s in sro]
    for rep in range(n_rep):
        for name, f in genu:
            im = Image.open(f).convert("RGB")
            t, p = pair(im, im, rng)
            rows.append({"case": "genuine", "src": name, **p, **_res(t)})
        for sid, img, key, lines in sro:
            for field in ("total", "date"):
                e = edit(sid, img, key, lines, rng, field)
                if e is None:
                    continue
                orig, edited, vb, change = e
                t, p = pair(orig, edited, rng)
                # text height in thumbnail px (the long side of the thumbnail over the image's)
                scale = (
                    p["size"] / max(orig.size)
                    if not p.get("letterbox")
                    else min(p["size"] / orig.width, 120 / orig.height)
                )
                rows.append(
                    {
                        "case": "edit_" + field,
                        "src": "sroie/" + sid,
                        "change": change,
                        "text_px": round((vb[3] - vb[1]) * scale, 1),
                        **p,
                        **_res(t),
                    }
                )
        print("rep", rep, len(rows), file=sys.stderr)
    with open(out, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r, default=lambda o: o.item() if hasattr(o, "item") else str(o)) + "\n")
    summary(rows)
    return 0


def summary(rows):
    from rabench.engine.provenance.thumbnail import OPINION_SHARE

    for case in ("genuine", "edit_total", "edit_date"):
        all_case = [r for r in rows if r["case"] == case]
        rs = [r for r in all_case if r.get("checked")]
        if not rs:
            continue
        proofs = [r for r in rs if r["mismatch"]]
        opinions = [r for r in rs if not r["mismatch"] and r["local"] >= OPINION_SHARE]
        local = sorted(r["local"] for r in rs)
        print(
            f"{case}: {len(rs)} compared ({len(all_case) - len(rs)} not), proof {len(proofs)} "
            f"({', '.join(sorted({r['kind'] for r in proofs})) or '-'}), opinion {len(opinions)}, "
            f"local score max {local[-1]:.2f}, 99th percentile {local[int(0.99 * (len(local) - 1))]:.2f}"
        )
        if case != "genuine":
            for lo, hi in ((0, 3), (3, 5), (5, 8), (8, 99)):
                s = [r for r in rs if lo <= r["text_px"] < hi]
                print(
                    f"  edited text {lo}-{hi} px high in the thumbnail: proof {sum(r['mismatch'] for r in s)}/{len(s)}"
                )


def _res(t):
    if t is None:
        return {"checked": False}
    import msgspec

    d = msgspec.structs.asdict(t)
    d.pop("boxes", None)
    return d


if __name__ == "__main__":
    raise SystemExit(main())
